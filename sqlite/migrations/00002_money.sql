-- +goose Up
-- Refunds, balances and billing keys. A payment may name its own webhook
-- target (notice_url); '' means the merchant's Notification URL. The
-- queries of the new storage methods are served by indexes of 00001:
-- payment_cancels_payment and payment_balances_payment (payment_id, id)
-- for the histories, the primary key (merchant_id, customer_uid) for
-- billing keys, and payments' integer primary key for UpdatePayment.
ALTER TABLE payments ADD COLUMN notice_url TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE payments DROP COLUMN notice_url;
