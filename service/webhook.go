package service

import (
	"context"
	"fmt"

	"github.com/payport/payport"
)

// MsgWebhookNotFound answers a redelivery of an unknown event.
const MsgWebhookNotFound = "존재하지 않는 웹훅입니다."

// WebhookSecret returns the merchant's webhook signing secret,
// `whsec_<base64>` (decisions §7). It is derived from a random id with the
// server key, so the database alone does not reveal it.
func (s *Service) WebhookSecret(m payport.Merchant) string {
	return s.keys.WebhookSecret(m.WebhookSecretID)
}

// MerchantWebhookSecret returns the webhook secret of the merchant owning
// impKey; with rotate, a new secret replaces the old one first.
func (s *Service) MerchantWebhookSecret(ctx context.Context, impKey string, rotate bool) (string, error) {
	var m payport.Merchant
	err := s.store.Update(ctx, func(tx payport.Tx) error {
		var err error
		if m, err = tx.MerchantByIMPKey(ctx, impKey); err != nil {
			return merchantLookupError(impKey, err)
		}
		if !rotate {
			return nil
		}
		m.WebhookSecretID = randomID()
		return tx.UpdateMerchant(ctx, m)
	})
	s.auth.invalidate()
	if err != nil {
		return "", err
	}
	return s.WebhookSecret(m), nil
}

// Webhooks implements GET /sandbox/webhooks: the merchant's newest webhook
// events with every delivery attempt.
func (s *Service) Webhooks(ctx context.Context, m payport.Merchant, limit *int64) ([]payport.Event, error) {
	n := int64(50)
	if limit != nil {
		if *limit < 1 || *limit > 1000 {
			return nil, payport.Invalid("limit", "must be between 1 and 1000")
		}
		n = *limit
	}
	evs, err := s.store.EventsByMerchant(ctx, m.ID, int(n))
	if err != nil {
		return nil, fmt.Errorf("webhooks: %w", err)
	}
	return evs, nil
}

// Redeliver implements POST /sandbox/webhooks/{id}/redeliver: the event is
// queued again with the same webhook-id, whatever its state.
func (s *Service) Redeliver(ctx context.Context, m payport.Merchant, id int64) (payport.Event, error) {
	err := s.store.Update(ctx, func(tx payport.Tx) error {
		return tx.RedeliverEvent(ctx, m.ID, id, s.clock.Now().Unix())
	})
	if payport.IsNotFound(err) {
		return payport.Event{}, payport.Errorf(payport.KindNotFound, "%s", MsgWebhookNotFound)
	} else if err != nil {
		return payport.Event{}, fmt.Errorf("redeliver: %w", err)
	}
	if f := s.webhookWake.Load(); f != nil {
		(*f)()
	}
	return s.store.EventByID(ctx, m.ID, id)
}

// OnWebhookDue registers f to be called after an event was queued for
// redelivery, so the dispatcher sends it at once.
func (s *Service) OnWebhookDue(f func()) { s.webhookWake.Store(&f) }
