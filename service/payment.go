package service

import (
	"context"
	"fmt"

	"github.com/payport/payport"
)

func paymentNotFound() error {
	return payport.Errorf(payport.KindNotFound, "%s", payport.MsgPaymentNotFound)
}

// Payment implements GET /payments/{imp_uid}: the merchant's payment or a
// not-found error (also for another merchant's imp_uid).
func (s *Service) Payment(ctx context.Context, m payport.Merchant, impUID string) (payport.Payment, error) {
	p, err := s.store.PaymentByIMPUID(ctx, m.ID, impUID)
	if payport.IsNotFound(err) {
		return p, paymentNotFound()
	} else if err != nil {
		return p, fmt.Errorf("payment %s: %w", impUID, err)
	}
	return p, nil
}

// FindPayment implements GET /payments/find/{merchant_uid}/{payment_status}:
// the first payment with merchantUID under sorting (default -started),
// restricted to status unless it is empty.
func (s *Service) FindPayment(ctx context.Context, m payport.Merchant, merchantUID, status, sorting string) (payport.Payment, error) {
	var st payport.Status
	if status != "" {
		var ok bool
		if st, ok = payport.ParseStatus(status); !ok {
			return payport.Payment{}, payport.Invalid("payment_status", "must be one of ready, paid, failed, cancelled")
		}
	}
	sort, ok := payport.ParseSort(sorting)
	if !ok {
		return payport.Payment{}, payport.Invalid("sorting", "must be one of -started, started, -paid, paid, -updated, updated")
	}
	p, err := s.store.FindPayment(ctx, m.ID, merchantUID, st, sort)
	if payport.IsNotFound(err) {
		return p, paymentNotFound()
	} else if err != nil {
		return p, fmt.Errorf("find payment %s: %w", merchantUID, err)
	}
	return p, nil
}

// Payments implements GET /payments: the payments named by impUIDs and then
// merchantUIDs (each its newest payment), in request order, skipping the
// ones not found. complete reports whether every identifier was found; none
// found is a not-found error. At most 100 identifiers, counting both lists.
func (s *Service) Payments(ctx context.Context, m payport.Merchant, impUIDs, merchantUIDs []string) (found []payport.Payment, complete bool, err error) {
	n := len(impUIDs) + len(merchantUIDs)
	if n == 0 {
		return nil, false, payport.Invalid("imp_uid[], merchant_uid[]", "at least one identifier is required")
	}
	if n > payport.MaxMultiLookup {
		return nil, false, payport.Invalid("imp_uid[], merchant_uid[]", fmt.Sprintf("at most %d identifiers in total, got %d", payport.MaxMultiLookup, n))
	}
	found = make([]payport.Payment, 0, n)
	add := func(p payport.Payment, err error) error {
		if payport.IsNotFound(err) {
			return nil
		} else if err != nil {
			return fmt.Errorf("payments: %w", err)
		}
		found = append(found, p)
		return nil
	}
	for _, id := range impUIDs {
		if err := add(s.store.PaymentByIMPUID(ctx, m.ID, id)); err != nil {
			return nil, false, err
		}
	}
	for _, uid := range merchantUIDs {
		if err := add(s.store.FindPayment(ctx, m.ID, uid, "", payport.DefaultSort)); err != nil {
			return nil, false, err
		}
	}
	if len(found) == 0 {
		return nil, false, paymentNotFound()
	}
	return found, len(found) == n, nil
}
