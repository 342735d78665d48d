-- +goose Up
-- Every resource of the service. Amounts are INTEGER minor units, timestamps
-- INTEGER UNIX seconds (0 = not happened), booleans INTEGER 0/1, text
-- without a value ''. Uniqueness rules are constraints, not code.

CREATE TABLE merchants (
    id                   INTEGER PRIMARY KEY,
    name                 TEXT    NOT NULL,
    imp_key              TEXT    NOT NULL UNIQUE,
    imp_secret_hash      BLOB    NOT NULL,
    notification_url     TEXT    NOT NULL DEFAULT '',
    webhook_content_type TEXT    NOT NULL DEFAULT 'json' CHECK (webhook_content_type IN ('json', 'form')),
    webhook_max_attempts INTEGER NOT NULL DEFAULT 8 CHECK (webhook_max_attempts > 0),
    schedule_list_paged  INTEGER NOT NULL DEFAULT 0,
    webhook_secret_id    TEXT    NOT NULL,
    clock_offset         INTEGER NOT NULL DEFAULT 0 CHECK (clock_offset >= 0),
    created_at           INTEGER NOT NULL
);

CREATE TABLE api_keys (
    key_hash    BLOB    PRIMARY KEY,
    merchant_id INTEGER NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL,
    revoked_at  INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE pg_settings (
    id           INTEGER PRIMARY KEY,
    merchant_id  INTEGER NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    pg_provider  TEXT    NOT NULL,
    pg_id        TEXT    NOT NULL,
    nonauth      INTEGER NOT NULL DEFAULT 0,
    vbank        INTEGER NOT NULL DEFAULT 0,
    api_key_hash BLOB,
    created_at   INTEGER NOT NULL,
    UNIQUE (merchant_id, pg_provider, pg_id)
);

CREATE TABLE api_tokens (
    token_hash  BLOB    PRIMARY KEY,
    token_id    TEXT    NOT NULL,
    merchant_id INTEGER NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    kind        TEXT    NOT NULL CHECK (kind IN ('rest', 'access', 'refresh')),
    family_id   TEXT    NOT NULL DEFAULT '',
    issued_at   INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    used_at     INTEGER NOT NULL DEFAULT 0,
    revoked_at  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX api_tokens_current ON api_tokens (merchant_id, kind, issued_at);
CREATE INDEX api_tokens_family ON api_tokens (family_id) WHERE family_id <> '';

-- The order-number registry: a one-time payment or a schedule claims its
-- merchant_uid exclusively, so reuse is refused by the primary key.
CREATE TABLE merchant_uids (
    merchant_id  INTEGER NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    merchant_uid TEXT    NOT NULL,
    created_at   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (merchant_id, merchant_uid)
) WITHOUT ROWID;

CREATE TABLE payments (
    id                  INTEGER PRIMARY KEY,
    merchant_id         INTEGER NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    imp_uid             TEXT    NOT NULL UNIQUE,
    merchant_uid        TEXT    NOT NULL,
    pay_method          TEXT    NOT NULL DEFAULT '',
    channel             TEXT    NOT NULL DEFAULT '',
    pg_provider         TEXT    NOT NULL DEFAULT '',
    emb_pg_provider     TEXT    NOT NULL DEFAULT '',
    pg_tid              TEXT    NOT NULL DEFAULT '',
    pg_id               TEXT    NOT NULL DEFAULT '',
    escrow              INTEGER NOT NULL DEFAULT 0,
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
    vbank_date          INTEGER NOT NULL DEFAULT 0,
    vbank_issued_at     INTEGER NOT NULL DEFAULT 0,
    name                TEXT    NOT NULL DEFAULT '',
    amount              INTEGER NOT NULL CHECK (amount >= 0),
    cancel_amount       INTEGER NOT NULL DEFAULT 0 CHECK (cancel_amount >= 0 AND cancel_amount <= amount),
    currency            TEXT    NOT NULL,
    buyer_name          TEXT    NOT NULL DEFAULT '',
    buyer_email         TEXT    NOT NULL DEFAULT '',
    buyer_tel           TEXT    NOT NULL DEFAULT '',
    buyer_addr          TEXT    NOT NULL DEFAULT '',
    buyer_postcode      TEXT    NOT NULL DEFAULT '',
    custom_data         TEXT    NOT NULL DEFAULT '',
    user_agent          TEXT    NOT NULL DEFAULT '',
    status              TEXT    NOT NULL CHECK (status IN ('ready', 'paid', 'failed', 'cancelled')),
    started_at          INTEGER NOT NULL DEFAULT 0,
    paid_at             INTEGER NOT NULL DEFAULT 0,
    failed_at           INTEGER NOT NULL DEFAULT 0,
    cancelled_at        INTEGER NOT NULL DEFAULT 0,
    fail_reason         TEXT    NOT NULL DEFAULT '',
    cancel_reason       TEXT    NOT NULL DEFAULT '',
    receipt_url         TEXT    NOT NULL DEFAULT '',
    cash_receipt_issued INTEGER NOT NULL DEFAULT 0,
    customer_uid        TEXT    NOT NULL DEFAULT '',
    customer_uid_usage  TEXT    NOT NULL DEFAULT '',
    updated_at          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX payments_merchant_uid ON payments (merchant_id, merchant_uid);

CREATE TABLE payment_cancels (
    id           INTEGER PRIMARY KEY,
    payment_id   INTEGER NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
    pg_tid       TEXT    NOT NULL DEFAULT '',
    amount       INTEGER NOT NULL CHECK (amount > 0),
    cancelled_at INTEGER NOT NULL,
    reason       TEXT    NOT NULL DEFAULT '',
    receipt_url  TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX payment_cancels_payment ON payment_cancels (payment_id, id);

-- Composite-payment breakdown: one row per payment or refund, the parts
-- as they stand after it.
CREATE TABLE payment_balances (
    id                    INTEGER PRIMARY KEY,
    payment_id            INTEGER NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
    created_at            INTEGER NOT NULL,
    primary_amount        INTEGER NOT NULL DEFAULT 0,
    primary_tax_free      INTEGER NOT NULL DEFAULT 0,
    secondary_amount      INTEGER NOT NULL DEFAULT 0,
    secondary_tax_free    INTEGER NOT NULL DEFAULT 0,
    discount_amount       INTEGER NOT NULL DEFAULT 0,
    discount_tax_free     INTEGER NOT NULL DEFAULT 0,
    cash_receipt_amount   INTEGER NOT NULL DEFAULT 0,
    cash_receipt_tax_free INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX payment_balances_payment ON payment_balances (payment_id, id);

-- Billing keys: the gateway's opaque token and the masked number, never
-- the card number.
CREATE TABLE customers (
    merchant_id       INTEGER NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    customer_uid      TEXT    NOT NULL,
    pg_provider       TEXT    NOT NULL DEFAULT '',
    pg_id             TEXT    NOT NULL DEFAULT '',
    card_name         TEXT    NOT NULL DEFAULT '',
    card_code         TEXT    NOT NULL DEFAULT '',
    card_number       TEXT    NOT NULL DEFAULT '',
    card_type         TEXT    NOT NULL DEFAULT '',
    gateway_token     TEXT    NOT NULL,
    customer_name     TEXT    NOT NULL DEFAULT '',
    customer_tel      TEXT    NOT NULL DEFAULT '',
    customer_email    TEXT    NOT NULL DEFAULT '',
    customer_addr     TEXT    NOT NULL DEFAULT '',
    customer_postcode TEXT    NOT NULL DEFAULT '',
    inserted          INTEGER NOT NULL,
    updated           INTEGER NOT NULL,
    PRIMARY KEY (merchant_id, customer_uid)
);

CREATE TABLE schedules (
    id             INTEGER PRIMARY KEY,
    merchant_id    INTEGER NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    customer_uid   TEXT    NOT NULL,
    merchant_uid   TEXT    NOT NULL,
    imp_uid        TEXT    NOT NULL DEFAULT '',
    schedule_at    INTEGER NOT NULL,
    executed_at    INTEGER NOT NULL DEFAULT 0,
    revoked_at     INTEGER NOT NULL DEFAULT 0,
    amount         INTEGER NOT NULL CHECK (amount > 0),
    tax_free       INTEGER NOT NULL DEFAULT 0,
    currency       TEXT    NOT NULL,
    name           TEXT    NOT NULL DEFAULT '',
    buyer_name     TEXT    NOT NULL DEFAULT '',
    buyer_email    TEXT    NOT NULL DEFAULT '',
    buyer_tel      TEXT    NOT NULL DEFAULT '',
    buyer_addr     TEXT    NOT NULL DEFAULT '',
    buyer_postcode TEXT    NOT NULL DEFAULT '',
    custom_data    TEXT    NOT NULL DEFAULT '',
    notice_url     TEXT    NOT NULL DEFAULT '',
    status         TEXT    NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'executed', 'revoked')),
    payment_status TEXT    NOT NULL DEFAULT '' CHECK (payment_status IN ('', 'paid', 'failed', 'cancelled')),
    fail_reason    TEXT    NOT NULL DEFAULT '',
    claimed_until  INTEGER NOT NULL DEFAULT 0,
    UNIQUE (merchant_id, merchant_uid)
);
CREATE INDEX schedules_due ON schedules (status, schedule_at);
CREATE INDEX schedules_customer ON schedules (merchant_id, customer_uid, schedule_at);

-- The webhook outbox: written in the transaction of the change it reports.
CREATE TABLE webhook_events (
    id              INTEGER PRIMARY KEY,
    webhook_id      TEXT    NOT NULL UNIQUE,
    merchant_id     INTEGER NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    url             TEXT    NOT NULL,
    type            TEXT    NOT NULL,
    imp_uid         TEXT    NOT NULL DEFAULT '',
    merchant_uid    TEXT    NOT NULL DEFAULT '',
    status          TEXT    NOT NULL DEFAULT '',
    cancellation_id TEXT    NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    state           TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL DEFAULT 0,
    claimed_until   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX webhook_events_due ON webhook_events (state, next_attempt_at);

CREATE TABLE webhook_attempts (
    id           INTEGER PRIMARY KEY,
    event_id     INTEGER NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    attempted_at INTEGER NOT NULL,
    duration_ms  INTEGER NOT NULL DEFAULT 0,
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
DROP TABLE pg_settings;
DROP TABLE api_keys;
DROP TABLE merchants;
