-- +goose Up
-- Schedules and the webhook outbox (tables of 00001): indexes for the
-- scheduler's and the dispatcher's polling queries, which run every second
-- and must stay cheap with many future rows. The partial indexes hold only
-- the live rows (still scheduled, still pending), ordered as the queries
-- read them, so a poll reads the due prefix of the index and stops. The
-- queries repeat the index's WHERE term literally so the planner uses it.

-- DueSchedules: status = 'scheduled' AND schedule_at <= bound ORDER BY schedule_at, id.
DROP INDEX schedules_due;
CREATE INDEX schedules_due ON schedules (schedule_at, id) WHERE status = 'scheduled';

-- DueSchedules bounds its range by now + max(clock_offset): an index makes
-- that max a single lookup.
CREATE INDEX merchants_clock_offset ON merchants (clock_offset);

-- SetSchedulePaymentStatus: the executed schedule of a payment.
CREATE INDEX schedules_imp_uid ON schedules (merchant_id, imp_uid) WHERE imp_uid <> '';

-- ClaimEvents: state = 'pending' AND next_attempt_at <= now ORDER BY next_attempt_at, id.
DROP INDEX webhook_events_due;
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at, id) WHERE state = 'pending';

-- EventsByMerchant: the merchant's events, newest first.
CREATE INDEX webhook_events_merchant ON webhook_events (merchant_id, id);

-- Schedules (list) and RevokeSchedules by customer use schedules_customer
-- (merchant_id, customer_uid, schedule_at) of 00001; ScheduleByMerchantUID
-- and RevokeSchedules by merchant_uid the UNIQUE (merchant_id,
-- merchant_uid); attempts are read through webhook_attempts_event.

-- +goose Down
DROP INDEX webhook_events_merchant;
DROP INDEX webhook_events_due;
CREATE INDEX webhook_events_due ON webhook_events (state, next_attempt_at);
DROP INDEX schedules_imp_uid;
DROP INDEX merchants_clock_offset;
DROP INDEX schedules_due;
CREATE INDEX schedules_due ON schedules (status, schedule_at);
