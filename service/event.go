package service

import (
	"context"

	"github.com/payport/payport"
)

// queueWebhook writes the outbox row of a payment event (decisions §7) in
// the caller's transaction: to the payment's notice_url, else the
// merchant's Notification URL; with neither, nothing is sent.
func (s *Service) queueWebhook(ctx context.Context, tx payport.Tx, m payport.Merchant, p payport.Payment, status, cancellationID string, now int64) error {
	url := orDefault(p.NoticeURL, m.NotificationURL)
	if url == "" {
		return nil
	}
	e := payport.Event{
		WebhookID: "msg_" + randomID(), MerchantID: m.ID, URL: url, Type: status,
		IMPUID: p.IMPUID, MerchantUID: p.MerchantUID, Status: status, CancelID: cancellationID,
		CreatedAt: now, State: payport.EventPending, NextAttemptAt: s.clock.Now().Unix(), // delivery runs on server time
	}
	return tx.InsertEvent(ctx, &e)
}
