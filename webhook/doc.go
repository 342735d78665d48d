// Package webhook owns the delivery of webhook events (decisions §7 and §8):
// the Standard Webhooks signature scheme (Sign, Verify), the request body of
// an event (Body), and the Dispatcher, which drains the outbox that the
// service writes in the same transaction as each state change.
//
// The Dispatcher claims due events with a lease (Tx.ClaimEvents), POSTs each
// one to its URL, and records every attempt (Tx.RecordAttempt): a 2xx answer
// delivers the event; a network error or any other status schedules a retry
// after Backoff × 2^(attempts−1), until the merchant's WebhookMaxAttempts
// makes the event failed. Delivery is at least once: an event claimed but
// never recorded (a crash, a shutdown before it started) is claimed again
// when its lease runs out, with the same webhook-id, so receivers deduplicate
// on that header.
//
// It depends only on the domain package and the standard library; storage,
// the clock and the merchant's signing secret are handed to it.
package webhook
