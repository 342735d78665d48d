package service

import (
	"context"
	"fmt"
	"regexp"

	"github.com/payport/payport"
)

// CardInput is card data in a request. The card number and expiry are
// judged by the gateway (a bad one is a card failure, decisions §4.3); the
// other fields are checked here.
type CardInput struct {
	payport.Card
}

var (
	birthPattern = regexp.MustCompile(`^(?:[0-9]{6}|[0-9]{10})$`)
	pwdPattern   = regexp.MustCompile(`^[0-9]{2}$`)
	cvcPattern   = regexp.MustCompile(`^[0-9]{3,4}$`)
)

func (c CardInput) validate() error {
	switch {
	case c.Number == "":
		return payport.Invalid("card_number", "required")
	case c.Expiry == "":
		return payport.Invalid("expiry", "required")
	case len(c.Number) > 32:
		return payport.Invalid("card_number", "must be at most 32 characters")
	case len(c.Expiry) > 16:
		return payport.Invalid("expiry", "must be at most 16 characters")
	case c.Birth != "" && !birthPattern.MatchString(c.Birth):
		return payport.Invalid("birth", "must be 6 digits (YYMMDD) or a 10-digit business registration number")
	case c.PWD2Digit != "" && !pwdPattern.MatchString(c.PWD2Digit):
		return payport.Invalid("pwd_2digit", "must be the first 2 digits of the card password")
	case c.CVC != "" && !cvcPattern.MatchString(c.CVC):
		return payport.Invalid("cvc", "must be 3 or 4 digits")
	}
	return nil
}

// ChargeInput is what a card charge adds to its order.
type ChargeInput struct {
	Order
	TaxFree   string // decimal text
	VATAmount *int64
	CardQuota *int64
}

func (in *ChargeInput) validate() (payport.Currency, int64, error) {
	cur, amount, err := in.Order.validate()
	if err != nil {
		return "", 0, err
	}
	taxFree, err := parseNonNegative("tax_free", in.TaxFree, cur)
	if err != nil {
		return "", 0, err
	}
	if taxFree > amount {
		return "", 0, payport.Invalid("tax_free", "must not exceed amount")
	}
	if in.VATAmount != nil && (*in.VATAmount < 0 || *in.VATAmount > amount) {
		return "", 0, payport.Invalid("vat_amount", "must be between 0 and amount")
	}
	if in.CardQuota != nil && (*in.CardQuota < 0 || *in.CardQuota > 36) {
		return "", 0, payport.Invalid("card_quota", "must be between 0 and 36 months")
	}
	return cur, amount, nil
}

func (in *ChargeInput) quota() int {
	if in.CardQuota == nil {
		return 0
	}
	return int(*in.CardQuota)
}

// OneTimeInput is the body of POST /subscribe/payments/onetime (spec 4.9).
type OneTimeInput struct {
	ChargeInput
	Card        CardInput
	CustomerUID string
	PG          string
}

// OneTime implements POST /subscribe/payments/onetime (decisions §3.4): a
// card charged once without authentication. A declined charge is a failed
// payment (code 0); a rejected card stores nothing. With customer_uid and
// approval the card's billing key is stored under it.
func (s *Service) OneTime(ctx context.Context, m payport.Merchant, in OneTimeInput) (payport.Payment, error) {
	cur, amount, err := in.validate()
	if err != nil {
		return payport.Payment{}, err
	}
	if err := in.Card.validate(); err != nil {
		return payport.Payment{}, err
	}
	if err := maxLen("customer_uid", in.CustomerUID, 80); err != nil {
		return payport.Payment{}, err
	}
	settings, err := s.store.PGSettings(ctx, m.ID)
	if err != nil {
		return payport.Payment{}, fmt.Errorf("onetime: %w", err)
	}
	pg, err := resolveNonAuthPG(settings, in.PG)
	if err != nil {
		return payport.Payment{}, err
	}
	now := s.now(m)
	var p payport.Payment
	err = s.store.Update(ctx, func(tx payport.Tx) error {
		if err := claimOrder(ctx, tx, m, in.MerchantUID); err != nil {
			return err
		}
		charge, err := s.gateway.ChargeCard(ctx, in.Card.Card, payport.ChargeRequest{PG: pg, Amount: amount, Currency: cur, Quota: in.quota(), Now: now})
		if err != nil {
			return err
		}
		p = s.chargedPayment(m, in.Order, cur, amount, now, pg, charge, in.quota())
		if in.CustomerUID != "" {
			p.CustomerUID, p.CustomerUIDUsage = in.CustomerUID, payport.UsagePayment
		}
		if err := s.recordCharge(ctx, tx, m, &p, now); err != nil {
			return err
		}
		if !charge.Approved || in.CustomerUID == "" {
			return nil
		}
		return tx.UpsertCustomer(ctx, payport.Customer{
			MerchantID: m.ID, CustomerUID: in.CustomerUID, PGProvider: pg.Provider, PGID: pg.PGID,
			CardName: charge.Key.Card.Name, CardCode: charge.Key.Card.Code, CardNumber: charge.Key.Card.Number,
			CardType: charge.Key.Card.Type, GatewayToken: charge.Key.Token, CustomerName: in.BuyerName,
			CustomerTel: in.BuyerTel, CustomerEmail: in.BuyerEmail, CustomerAddr: in.BuyerAddr,
			CustomerPostcode: in.BuyerPostcode, Inserted: now, Updated: now,
		})
	})
	if err != nil {
		return payport.Payment{}, fmt.Errorf("onetime: %w", err)
	}
	s.observe.PaymentChanged(p.Status)
	return p, nil
}

// AgainInput is the body of POST /subscribe/payments/again.
type AgainInput struct {
	ChargeInput
	CustomerUID string
}

// Again implements POST /subscribe/payments/again: a charge of a stored
// billing key. Absent buyer fields are taken from the billing key's
// customer fields.
func (s *Service) Again(ctx context.Context, m payport.Merchant, in AgainInput) (payport.Payment, error) {
	if in.CustomerUID == "" {
		return payport.Payment{}, payport.Invalid("customer_uid", "required")
	}
	cur, amount, err := in.validate()
	if err != nil {
		return payport.Payment{}, err
	}
	settings, err := s.store.PGSettings(ctx, m.ID)
	if err != nil {
		return payport.Payment{}, fmt.Errorf("again: %w", err)
	}
	now := s.now(m)
	var p payport.Payment
	err = s.store.Update(ctx, func(tx payport.Tx) error {
		c, err := tx.CustomerByUID(ctx, m.ID, in.CustomerUID)
		if payport.IsNotFound(err) {
			return payport.Errorf(payport.KindDeclined, "%s", MsgUnknownCard)
		} else if err != nil {
			return err
		}
		if err := claimOrder(ctx, tx, m, in.MerchantUID); err != nil {
			return err
		}
		if p, err = s.chargeKey(ctx, m, c, settings, in.ChargeInput, cur, amount, now, payport.UsagePayment); err != nil {
			return err
		}
		return s.recordCharge(ctx, tx, m, &p, now)
	})
	if err != nil {
		return payport.Payment{}, fmt.Errorf("again: %w", err)
	}
	s.observe.PaymentChanged(p.Status)
	return p, nil
}

// chargeKey charges a billing key for an order and returns the payment
// (paid or failed) to record. Again and the scheduler use it.
func (s *Service) chargeKey(ctx context.Context, m payport.Merchant, c payport.Customer, settings []payport.PGSetting,
	in ChargeInput, cur payport.Currency, amount, now int64, usage string) (payport.Payment, error) {
	o := in.Order
	o.BuyerName, o.BuyerEmail, o.BuyerTel = orDefault(o.BuyerName, c.CustomerName), orDefault(o.BuyerEmail, c.CustomerEmail), orDefault(o.BuyerTel, c.CustomerTel)
	o.BuyerAddr, o.BuyerPostcode = orDefault(o.BuyerAddr, c.CustomerAddr), orDefault(o.BuyerPostcode, c.CustomerPostcode)
	pg := settingOf(settings, c.PGProvider, c.PGID)
	key := payport.BillingKey{Token: c.GatewayToken, Card: payport.CardInfo{Code: c.CardCode, Name: c.CardName, Number: c.CardNumber, Type: c.CardType}}
	charge, err := s.gateway.ChargeKey(ctx, key, payport.ChargeRequest{PG: pg, Amount: amount, Currency: cur, Quota: in.quota(), Now: now})
	if err != nil {
		return payport.Payment{}, err
	}
	p := s.chargedPayment(m, o, cur, amount, now, pg, charge, in.quota())
	p.CustomerUID, p.CustomerUIDUsage = c.CustomerUID, usage
	return p, nil
}

// claimOrder registers a merchant_uid for a new charge; one already used by
// any payment or schedule of the merchant is refused.
func claimOrder(ctx context.Context, tx payport.Tx, m payport.Merchant, merchantUID string) error {
	err := tx.ClaimMerchantUID(ctx, m.ID, merchantUID, true)
	if payport.IsConflict(err) {
		return payport.Errorf(payport.KindRefused, "%s", payport.MsgMerchantUIDUsed)
	}
	return err
}

// chargedPayment is the record of a card charge through the API channel.
func (s *Service) chargedPayment(m payport.Merchant, o Order, cur payport.Currency, amount, now int64, pg payport.PGSetting, c payport.Charge, quota int) payport.Payment {
	p := orderPayment(m, o, cur, amount, now)
	p.PayMethod, p.Channel, p.PGProvider, p.PGID, p.PGTID = "card", payport.ChannelAPI, pg.Provider, pg.PGID, c.PGTID
	p.CardCode, p.CardName, p.CardNumber, p.CardType, p.CardQuota = c.Card.Code, c.Card.Name, c.Card.Number, c.Card.Type, quota
	if c.Approved {
		p.Status, p.PaidAt, p.ApplyNum, p.ReceiptURL = payport.StatusPaid, now, c.ApplyNum, s.receiptURL()
	} else {
		p.Status, p.FailedAt, p.FailReason = payport.StatusFailed, now, c.FailReason
	}
	return p
}

// recordCharge inserts a charged payment and, when paid, its webhook.
func (s *Service) recordCharge(ctx context.Context, tx payport.Tx, m payport.Merchant, p *payport.Payment, now int64) error {
	if err := s.insertPayment(ctx, tx, p); err != nil {
		return err
	}
	if p.Status != payport.StatusPaid {
		return nil
	}
	return s.queueWebhook(ctx, tx, m, *p, string(payport.StatusPaid), "", now)
}
