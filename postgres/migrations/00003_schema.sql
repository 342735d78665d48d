-- +goose Up
-- The whole schema of payport on PostgreSQL: the tables, constraints and
-- indexes that the SQLite engine builds in its migrations 00001 to 00003.
-- This engine starts at version 3 so that a schema version names the same
-- schema on both engines; the next migration of either is 00004.
--
-- Amounts are BIGINT minor units, timestamps BIGINT UNIX seconds (0 = not
-- happened), flags BOOLEAN, hashes BYTEA, text without a value ''. Every
-- uniqueness rule is a constraint, not code. Ids are identity columns.

CREATE TABLE merchants (
    id                   BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name                 TEXT    NOT NULL,
    imp_key              TEXT    NOT NULL UNIQUE,
    imp_secret_hash      BYTEA   NOT NULL,
    notification_url     TEXT    NOT NULL DEFAULT '',
    webhook_content_type TEXT    NOT NULL DEFAULT 'json' CHECK (webhook_content_type IN ('json', 'form')),
    webhook_max_attempts INTEGER NOT NULL DEFAULT 8 CHECK (webhook_max_attempts > 0),
    schedule_list_paged  BOOLEAN NOT NULL DEFAULT FALSE,
    webhook_secret_id    TEXT    NOT NULL,
    clock_offset         BIGINT  NOT NULL DEFAULT 0 CHECK (clock_offset >= 0),
    created_at           BIGINT  NOT NULL
);
-- DueSchedules bounds its range by now + max(clock_offset): this index makes
-- that max a single lookup.
CREATE INDEX merchants_clock_offset ON merchants (clock_offset);

CREATE TABLE api_keys (
    key_hash    BYTEA  PRIMARY KEY,
    merchant_id BIGINT NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    revoked_at  BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX api_keys_merchant ON api_keys (merchant_id);

-- SQLite's pg_settings: renamed because PostgreSQL searches pg_catalog
-- first, where a system view of that name would shadow the table.
CREATE TABLE merchant_pg_settings (
    id           BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    merchant_id  BIGINT  NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    pg_provider  TEXT    NOT NULL,
    pg_id        TEXT    NOT NULL,
    nonauth      BOOLEAN NOT NULL DEFAULT FALSE,
    vbank        BOOLEAN NOT NULL DEFAULT FALSE,
    api_key_hash BYTEA,
    created_at   BIGINT  NOT NULL,
    UNIQUE (merchant_id, pg_provider, pg_id)
);

-- seq is the insertion order (SQLite's rowid), the tie-breaker of
-- CurrentRESTToken between tokens issued in the same second.
CREATE TABLE api_tokens (
    token_hash  BYTEA  PRIMARY KEY,
    seq         BIGINT GENERATED ALWAYS AS IDENTITY,
    token_id    TEXT   NOT NULL,
    merchant_id BIGINT NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    kind        TEXT   NOT NULL CHECK (kind IN ('rest', 'access', 'refresh')),
    family_id   TEXT   NOT NULL DEFAULT '',
    issued_at   BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT NOT NULL DEFAULT 0,
    revoked_at  BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX api_tokens_current ON api_tokens (merchant_id, kind, issued_at, seq);
CREATE INDEX api_tokens_family ON api_tokens (family_id) WHERE family_id <> '';

-- The order-number registry: a one-time payment or a schedule claims its
-- merchant_uid exclusively, so reuse is refused by the primary key.
CREATE TABLE merchant_uids (
    merchant_id  BIGINT NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    merchant_uid TEXT   NOT NULL,
    created_at   BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (merchant_id, merchant_uid)
);

CREATE TABLE payments (
    id                  BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    merchant_id         BIGINT  NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    imp_uid             TEXT    NOT NULL UNIQUE,
    merchant_uid        TEXT    NOT NULL,
    pay_method          TEXT    NOT NULL DEFAULT '',
    channel             TEXT    NOT NULL DEFAULT '',
    pg_provider         TEXT    NOT NULL DEFAULT '',
    emb_pg_provider     TEXT    NOT NULL DEFAULT '',
    pg_tid              TEXT    NOT NULL DEFAULT '',
    pg_id               TEXT    NOT NULL DEFAULT '',
    escrow              BOOLEAN NOT NULL DEFAULT FALSE,
    apply_num           TEXT    NOT NULL DEFAULT '',
    bank_code           TEXT    NOT NULL DEFAULT '',
    bank_name           TEXT    NOT NULL DEFAULT '',
    card_code           TEXT    NOT NULL DEFAULT '',
    card_name           TEXT    NOT NULL DEFAULT '',
    card_quota          INTEGER NOT NULL DEFAULT 0,
    card_number         TEXT    NOT NULL DEFAULT '',
    card_type           TEXT    NOT NULL DEFAULT '',
    vbank_code          TEXT    NOT NULL DEFAULT '',
    vbank_name          TEXT    NOT NULL DEFAULT '',
    vbank_num           TEXT    NOT NULL DEFAULT '',
    vbank_holder        TEXT    NOT NULL DEFAULT '',
    vbank_date          BIGINT  NOT NULL DEFAULT 0,
    vbank_issued_at     BIGINT  NOT NULL DEFAULT 0,
    name                TEXT    NOT NULL DEFAULT '',
    amount              BIGINT  NOT NULL CHECK (amount >= 0),
    cancel_amount       BIGINT  NOT NULL DEFAULT 0 CHECK (cancel_amount >= 0 AND cancel_amount <= amount),
    currency            TEXT    NOT NULL,
    buyer_name          TEXT    NOT NULL DEFAULT '',
    buyer_email         TEXT    NOT NULL DEFAULT '',
    buyer_tel           TEXT    NOT NULL DEFAULT '',
    buyer_addr          TEXT    NOT NULL DEFAULT '',
    buyer_postcode      TEXT    NOT NULL DEFAULT '',
    custom_data         TEXT    NOT NULL DEFAULT '',
    user_agent          TEXT    NOT NULL DEFAULT '',
    status              TEXT    NOT NULL CHECK (status IN ('ready', 'paid', 'failed', 'cancelled')),
    started_at          BIGINT  NOT NULL DEFAULT 0,
    paid_at             BIGINT  NOT NULL DEFAULT 0,
    failed_at           BIGINT  NOT NULL DEFAULT 0,
    cancelled_at        BIGINT  NOT NULL DEFAULT 0,
    fail_reason         TEXT    NOT NULL DEFAULT '',
    cancel_reason       TEXT    NOT NULL DEFAULT '',
    receipt_url         TEXT    NOT NULL DEFAULT '',
    cash_receipt_issued BOOLEAN NOT NULL DEFAULT FALSE,
    customer_uid        TEXT    NOT NULL DEFAULT '',
    customer_uid_usage  TEXT    NOT NULL DEFAULT '',
    updated_at          BIGINT  NOT NULL DEFAULT 0,
    -- Where this payment's webhooks go; '' for the merchant's Notification URL.
    notice_url          TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX payments_merchant_uid ON payments (merchant_id, merchant_uid);

CREATE TABLE payment_cancels (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payment_id   BIGINT NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
    pg_tid       TEXT   NOT NULL DEFAULT '',
    amount       BIGINT NOT NULL CHECK (amount > 0),
    cancelled_at BIGINT NOT NULL,
    reason       TEXT   NOT NULL DEFAULT '',
    receipt_url  TEXT   NOT NULL DEFAULT ''
);
CREATE INDEX payment_cancels_payment ON payment_cancels (payment_id, id);

-- Composite-payment breakdown: one row per payment or refund, the parts
-- as they stand after it.
CREATE TABLE payment_balances (
    id                    BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payment_id            BIGINT NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
    created_at            BIGINT NOT NULL,
    primary_amount        BIGINT NOT NULL DEFAULT 0,
    primary_tax_free      BIGINT NOT NULL DEFAULT 0,
    secondary_amount      BIGINT NOT NULL DEFAULT 0,
    secondary_tax_free    BIGINT NOT NULL DEFAULT 0,
    discount_amount       BIGINT NOT NULL DEFAULT 0,
    discount_tax_free     BIGINT NOT NULL DEFAULT 0,
    cash_receipt_amount   BIGINT NOT NULL DEFAULT 0,
    cash_receipt_tax_free BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX payment_balances_payment ON payment_balances (payment_id, id);

-- Billing keys: the gateway's opaque token and the masked number, never
-- the card number.
CREATE TABLE customers (
    merchant_id       BIGINT NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    customer_uid      TEXT   NOT NULL,
    pg_provider       TEXT   NOT NULL DEFAULT '',
    pg_id             TEXT   NOT NULL DEFAULT '',
    card_name         TEXT   NOT NULL DEFAULT '',
    card_code         TEXT   NOT NULL DEFAULT '',
    card_number       TEXT   NOT NULL DEFAULT '',
    card_type         TEXT   NOT NULL DEFAULT '',
    gateway_token     TEXT   NOT NULL,
    customer_name     TEXT   NOT NULL DEFAULT '',
    customer_tel      TEXT   NOT NULL DEFAULT '',
    customer_email    TEXT   NOT NULL DEFAULT '',
    customer_addr     TEXT   NOT NULL DEFAULT '',
    customer_postcode TEXT   NOT NULL DEFAULT '',
    inserted          BIGINT NOT NULL,
    updated           BIGINT NOT NULL,
    PRIMARY KEY (merchant_id, customer_uid)
);

CREATE TABLE schedules (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    merchant_id    BIGINT NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    customer_uid   TEXT   NOT NULL,
    merchant_uid   TEXT   NOT NULL,
    imp_uid        TEXT   NOT NULL DEFAULT '',
    schedule_at    BIGINT NOT NULL,
    executed_at    BIGINT NOT NULL DEFAULT 0,
    revoked_at     BIGINT NOT NULL DEFAULT 0,
    amount         BIGINT NOT NULL CHECK (amount > 0),
    tax_free       BIGINT NOT NULL DEFAULT 0,
    currency       TEXT   NOT NULL,
    name           TEXT   NOT NULL DEFAULT '',
    buyer_name     TEXT   NOT NULL DEFAULT '',
    buyer_email    TEXT   NOT NULL DEFAULT '',
    buyer_tel      TEXT   NOT NULL DEFAULT '',
    buyer_addr     TEXT   NOT NULL DEFAULT '',
    buyer_postcode TEXT   NOT NULL DEFAULT '',
    custom_data    TEXT   NOT NULL DEFAULT '',
    notice_url     TEXT   NOT NULL DEFAULT '',
    status         TEXT   NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'executed', 'revoked')),
    payment_status TEXT   NOT NULL DEFAULT '' CHECK (payment_status IN ('', 'paid', 'failed', 'cancelled')),
    fail_reason    TEXT   NOT NULL DEFAULT '',
    claimed_until  BIGINT NOT NULL DEFAULT 0,
    UNIQUE (merchant_id, merchant_uid)
);
-- The polling queries run every second and must stay cheap with many future
-- rows: the partial indexes hold only the live rows (still scheduled, still
-- pending), ordered as the queries read them, so a poll reads the due prefix
-- and stops. The queries repeat the index's WHERE term literally.
--
-- DueSchedules: status = 'scheduled' AND schedule_at <= bound ORDER BY schedule_at, id.
CREATE INDEX schedules_due ON schedules (schedule_at, id) WHERE status = 'scheduled';
-- Schedules (list) and RevokeSchedules by customer.
CREATE INDEX schedules_customer ON schedules (merchant_id, customer_uid, schedule_at);
-- SetSchedulePaymentStatus: the executed schedule of a payment.
CREATE INDEX schedules_imp_uid ON schedules (merchant_id, imp_uid) WHERE imp_uid <> '';

-- The webhook outbox: written in the transaction of the change it reports.
CREATE TABLE webhook_events (
    id              BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_id      TEXT    NOT NULL UNIQUE,
    merchant_id     BIGINT  NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    url             TEXT    NOT NULL,
    type            TEXT    NOT NULL,
    imp_uid         TEXT    NOT NULL DEFAULT '',
    merchant_uid    TEXT    NOT NULL DEFAULT '',
    status          TEXT    NOT NULL DEFAULT '',
    cancellation_id TEXT    NOT NULL DEFAULT '',
    created_at      BIGINT  NOT NULL,
    state           TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT  NOT NULL DEFAULT 0,
    claimed_until   BIGINT  NOT NULL DEFAULT 0
);
-- ClaimEvents: state = 'pending' AND next_attempt_at <= now ORDER BY next_attempt_at, id.
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at, id) WHERE state = 'pending';
-- EventsByMerchant: the merchant's events, newest first.
CREATE INDEX webhook_events_merchant ON webhook_events (merchant_id, id);

CREATE TABLE webhook_attempts (
    id           BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id     BIGINT  NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    attempted_at BIGINT  NOT NULL,
    duration_ms  BIGINT  NOT NULL DEFAULT 0,
    http_status  INTEGER NOT NULL DEFAULT 0,
    error        TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX webhook_attempts_event ON webhook_attempts (event_id, id);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_events;
DROP TABLE schedules;
DROP TABLE customers;
DROP TABLE payment_balances;
DROP TABLE payment_cancels;
DROP TABLE payments;
DROP TABLE merchant_uids;
DROP TABLE api_tokens;
DROP TABLE merchant_pg_settings;
DROP TABLE api_keys;
DROP TABLE merchants;
