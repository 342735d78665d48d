package service

import (
	"context"
	"fmt"

	"github.com/payport/payport"
)

// CustomerInput is the body of POST /subscribe/customers/{customer_uid}:
// card data to register and the customer's details.
type CustomerInput struct {
	Card             CardInput
	PG               string
	CustomerName     string
	CustomerTel      string
	CustomerEmail    string
	CustomerAddr     string
	CustomerPostcode string
}

func (in CustomerInput) validate(customerUID string) error {
	if err := validCustomerUID(customerUID); err != nil {
		return err
	}
	for _, l := range []struct {
		field, value string
		max          int
	}{
		{"customer_name", in.CustomerName, 16}, {"customer_tel", in.CustomerTel, 16}, {"customer_email", in.CustomerEmail, 64},
		{"customer_addr", in.CustomerAddr, 128}, {"customer_postcode", in.CustomerPostcode, 8},
	} {
		if err := maxLen(l.field, l.value, l.max); err != nil {
			return err
		}
	}
	return in.Card.validate()
}

func validCustomerUID(uid string) error {
	if uid == "" {
		return payport.Invalid("customer_uid", "required")
	}
	return maxLen("customer_uid", uid, 80)
}

// IssueCustomer implements POST /subscribe/customers/{customer_uid}:
// registers a card with the gateway and stores (or replaces) its billing
// key under customerUID. A card the gateway rejects stores nothing.
func (s *Service) IssueCustomer(ctx context.Context, m payport.Merchant, customerUID string, in CustomerInput) (payport.Customer, error) {
	if err := in.validate(customerUID); err != nil {
		return payport.Customer{}, err
	}
	settings, err := s.store.PGSettings(ctx, m.ID)
	if err != nil {
		return payport.Customer{}, fmt.Errorf("issue billing key: %w", err)
	}
	pg, err := resolveNonAuthPG(settings, in.PG)
	if err != nil {
		return payport.Customer{}, err
	}
	now := s.now(m)
	var c payport.Customer
	err = s.store.Update(ctx, func(tx payport.Tx) error {
		c, err = s.issueCustomer(ctx, tx, m, customerUID, pg, in, now)
		return err
	})
	if err != nil {
		return payport.Customer{}, fmt.Errorf("issue billing key: %w", err)
	}
	return c, nil
}

// issueCustomer registers a card and stores its billing key inside tx.
func (s *Service) issueCustomer(ctx context.Context, tx payport.Tx, m payport.Merchant, customerUID string, pg payport.PGSetting, in CustomerInput, now int64) (payport.Customer, error) {
	key, err := s.gateway.IssueBillingKey(ctx, pg, in.Card.Card, now)
	if err != nil {
		return payport.Customer{}, err
	}
	c := payport.Customer{
		MerchantID: m.ID, CustomerUID: customerUID, PGProvider: pg.Provider, PGID: pg.PGID,
		CardName: key.Card.Name, CardCode: key.Card.Code, CardNumber: key.Card.Number, CardType: key.Card.Type,
		GatewayToken: key.Token, CustomerName: in.CustomerName, CustomerTel: in.CustomerTel,
		CustomerEmail: in.CustomerEmail, CustomerAddr: in.CustomerAddr, CustomerPostcode: in.CustomerPostcode,
		Inserted: now, Updated: now,
	}
	if err := tx.UpsertCustomer(ctx, c); err != nil {
		return payport.Customer{}, err
	}
	return tx.CustomerByUID(ctx, m.ID, customerUID) // a replaced key keeps its inserted time
}

func customerAbsent(customerUID string) error {
	return payport.Errorf(payport.KindRefused, MsgCustomerAbsent, customerUID)
}

// Customer implements GET /subscribe/customers/{customer_uid}.
func (s *Service) Customer(ctx context.Context, m payport.Merchant, customerUID string) (payport.Customer, error) {
	c, err := s.store.CustomerByUID(ctx, m.ID, customerUID)
	if payport.IsNotFound(err) {
		return c, customerAbsent(customerUID)
	} else if err != nil {
		return c, fmt.Errorf("customer %s: %w", customerUID, err)
	}
	return c, nil
}

// DeleteCustomer implements DELETE /subscribe/customers/{customer_uid}
// (decisions §5.1): the billing key is deleted for good and returned as it
// was. Schedules on it are left alone; they fail when they run.
func (s *Service) DeleteCustomer(ctx context.Context, m payport.Merchant, customerUID string) (payport.Customer, error) {
	var c payport.Customer
	err := s.store.Update(ctx, func(tx payport.Tx) error {
		var err error
		if c, err = tx.CustomerByUID(ctx, m.ID, customerUID); payport.IsNotFound(err) {
			return customerAbsent(customerUID)
		} else if err != nil {
			return err
		}
		return tx.DeleteCustomer(ctx, m.ID, customerUID)
	})
	if err != nil {
		return payport.Customer{}, fmt.Errorf("delete customer %s: %w", customerUID, err)
	}
	return c, nil
}
