package payport

import "context"

// Store is the storage contract every engine (SQLite, PostgreSQL) implements.
// Reads outside a transaction see committed data; every write happens inside
// Update, so a state change and the events it emits commit together.
//
// Errors: a missing row is ErrNotFound (possibly wrapped); a violated
// uniqueness rule is ErrConflict; anything else is an internal error.
type Store interface {
	Reader
	// Update runs fn in one read-write transaction. It commits when fn
	// returns nil and rolls back otherwise, returning fn's error unchanged
	// (so its kind and message survive). Engines serialise or lock as needed
	// so that the rules written in fn hold under concurrency.
	Update(ctx context.Context, fn func(Tx) error) error
	// Close releases the engine's connections.
	Close() error
}

// Reader holds the queries, usable on a Store or inside a Tx.
type Reader interface {
	// MerchantByID returns ErrNotFound when there is no such merchant.
	MerchantByID(ctx context.Context, id int64) (Merchant, error)
	// MerchantByIMPKey returns ErrNotFound when no merchant has the key.
	MerchantByIMPKey(ctx context.Context, impKey string) (Merchant, error)
	// MerchantByAPIKeyHash returns the owner of an API key, or ErrNotFound.
	MerchantByAPIKeyHash(ctx context.Context, hash []byte) (Merchant, error)
	// Merchants lists every merchant, oldest first.
	Merchants(ctx context.Context) ([]Merchant, error)
	// PGSettings lists a merchant's PG settings, oldest first.
	PGSettings(ctx context.Context, merchantID int64) ([]PGSetting, error)

	// TokenByHash returns the token whose text hashes to hash, or ErrNotFound.
	TokenByHash(ctx context.Context, hash []byte) (Token, error)
	// CurrentRESTToken returns the merchant's newest REST token (expired or
	// not), or ErrNotFound when none was ever issued or it was deleted.
	CurrentRESTToken(ctx context.Context, merchantID int64) (Token, error)

	// PaymentByIMPUID returns the merchant's payment with its cancel
	// history, or ErrNotFound (also for another merchant's imp_uid). Writers
	// keep cancel_amount equal to the sum of the history, so an engine may
	// skip reading the history of a payment whose CancelAmount is 0.
	PaymentByIMPUID(ctx context.Context, merchantID int64, impUID string) (Payment, error)
	// FindPayment returns the first of the merchant's payments with
	// merchantUID under sort, restricted to status unless status is "",
	// or ErrNotFound. Ties are broken by newest insertion first.
	FindPayment(ctx context.Context, merchantID int64, merchantUID string, status Status, sort Sort) (Payment, error)
	// BalanceHistory lists a payment's balance entries, oldest first (empty
	// when it has none).
	BalanceHistory(ctx context.Context, paymentID int64) ([]BalanceEntry, error)

	// CustomerByUID returns the merchant's billing key, or ErrNotFound.
	CustomerByUID(ctx context.Context, merchantID int64, customerUID string) (Customer, error)

	// ScheduleByMerchantUID returns the merchant's schedule of an order, or ErrNotFound.
	ScheduleByMerchantUID(ctx context.Context, merchantID int64, merchantUID string) (Schedule, error)
	// Schedules returns the schedules q selects and how many match it in
	// all (ignoring Offset and Limit).
	Schedules(ctx context.Context, q ScheduleQuery) ([]Schedule, int, error)

	// OutboxDepth counts the webhook events of every merchant still waiting
	// to be delivered (state pending).
	OutboxDepth(ctx context.Context) (int, error)

	// EventsByMerchant lists the merchant's webhook events with their
	// attempts, newest first, at most limit.
	EventsByMerchant(ctx context.Context, merchantID int64, limit int) ([]Event, error)
	// EventByID returns one of the merchant's events with its attempts, or ErrNotFound.
	EventByID(ctx context.Context, merchantID, id int64) (Event, error)
}

// Tx is a read-write transaction.
type Tx interface {
	Reader

	// LockMerchant reads the merchant and holds a lock on it until the
	// transaction ends, serialising work done under it (token issuance).
	LockMerchant(ctx context.Context, id int64) (Merchant, error)
	// CreateMerchant inserts m and sets m.ID. A taken IMPKey is ErrConflict.
	CreateMerchant(ctx context.Context, m *Merchant) error
	// UpdateMerchant stores every mutable field of m (all but ID, IMPKey, CreatedAt).
	UpdateMerchant(ctx context.Context, m Merchant) error
	// AddAPIKey stores an API key hash. A duplicate hash is ErrConflict.
	AddAPIKey(ctx context.Context, k APIKey) error
	// AddPGSetting inserts s and sets s.ID. The same (provider, pg_id) twice
	// for one merchant is ErrConflict.
	AddPGSetting(ctx context.Context, s *PGSetting) error
	// RemovePGSetting deletes one setting, or returns ErrNotFound.
	RemovePGSetting(ctx context.Context, merchantID int64, provider, pgID string) error

	// InsertToken stores t. A duplicate hash is ErrConflict.
	InsertToken(ctx context.Context, t Token) error
	// DeleteRESTTokens deletes every REST token of the merchant.
	DeleteRESTTokens(ctx context.Context, merchantID int64) error
	// ExtendToken sets a token's expiry, or returns ErrNotFound.
	ExtendToken(ctx context.Context, hash []byte, expiresAt int64) error
	// UseToken marks an unused, unrevoked token used at `at` and reports
	// whether this call was the one that did (false when already used or
	// revoked): a compare-and-set, so two exchanges cannot both succeed.
	UseToken(ctx context.Context, hash []byte, at int64) (bool, error)
	// RevokeTokenFamily revokes every not yet revoked token of a sign-in family.
	RevokeTokenFamily(ctx context.Context, familyID string, at int64) error

	// ClaimMerchantUID registers merchantUID as used by the merchant. With
	// exclusive, an already registered one is ErrConflict; without, it is
	// left as is (checkout retries may reuse an order number).
	ClaimMerchantUID(ctx context.Context, merchantID int64, merchantUID string, exclusive bool) error
	// InsertPayment inserts p with its cancel history and sets p.ID and the
	// entries' IDs. A taken imp_uid is ErrConflict.
	InsertPayment(ctx context.Context, p *Payment) error
	// LockPayment reads the merchant's payment like PaymentByIMPUID and
	// holds a lock on it until the transaction ends, so that concurrent
	// refunds of one payment are serialised.
	LockPayment(ctx context.Context, merchantID int64, impUID string) (Payment, error)
	// UpdatePayment stores every mutable field of p (all but ID,
	// MerchantID, IMPUID, MerchantUID and CancelHistory), or returns
	// ErrNotFound. The database refuses a cancel_amount above amount.
	UpdatePayment(ctx context.Context, p Payment) error
	// InsertCancel adds a cancel-history entry and sets c.ID.
	InsertCancel(ctx context.Context, c *CancelEntry) error
	// InsertBalance adds a balance entry and sets b.ID.
	InsertBalance(ctx context.Context, b *BalanceEntry) error

	// UpsertCustomer stores a billing key, replacing the merchant's key of
	// the same customer_uid; a replaced key keeps its Inserted time.
	UpsertCustomer(ctx context.Context, c Customer) error
	// DeleteCustomer deletes a billing key, or returns ErrNotFound.
	DeleteCustomer(ctx context.Context, merchantID int64, customerUID string) error

	// InsertEvent adds a webhook outbox row and sets e.ID.
	InsertEvent(ctx context.Context, e *Event) error

	// InsertSchedule inserts s and sets s.ID. A merchant_uid the merchant's
	// schedules already use is ErrConflict.
	InsertSchedule(ctx context.Context, s *Schedule) error
	// DueSchedules returns up to limit schedules in status scheduled whose
	// schedule_at has been reached on their merchant's clock (the server
	// time now plus the merchant's clock offset), oldest first. On engines
	// with row locks the rows are locked and rows locked by another
	// transaction are skipped, so several nodes claim disjoint batches.
	DueSchedules(ctx context.Context, now int64, limit int) ([]Schedule, error)
	// FinishSchedule records the execution of s (status executed, IMPUID,
	// ExecutedAt, PaymentStatus, FailReason) only if it is still
	// scheduled, and reports whether it was: the row count is the claim.
	FinishSchedule(ctx context.Context, s Schedule) (bool, error)
	// RevokeSchedules revokes, at `at`, the merchant's schedules that are
	// still scheduled and match: customerUID unless "", and merchantUIDs
	// unless empty (at least one of the two is given). It returns the
	// revoked schedules, oldest schedule_at first.
	RevokeSchedules(ctx context.Context, merchantID int64, customerUID string, merchantUIDs []string, at int64) ([]Schedule, error)
	// SetSchedulePaymentStatus sets the payment_status of the merchant's
	// executed schedule whose payment is impUID (no error when none is).
	SetSchedulePaymentStatus(ctx context.Context, merchantID int64, impUID string, status Status) error

	// ClaimEvents leases up to limit pending events whose NextAttemptAt has
	// come (<= now) and that no live lease holds, until leaseUntil, oldest
	// first, and returns them. A crashed dispatcher's lease runs out and
	// its events are claimed again.
	ClaimEvents(ctx context.Context, now, leaseUntil int64, limit int) ([]Event, error)
	// RecordAttempt stores a delivery attempt of event a.EventID, sets the
	// event's state, attempt count (+1) and next attempt time, and ends its
	// lease. ErrNotFound when the event does not exist.
	RecordAttempt(ctx context.Context, a *Attempt, state string, nextAttemptAt int64) error
	// RedeliverEvent makes one of the merchant's events pending again,
	// due at now, with its attempt count reset; ErrNotFound when none.
	RedeliverEvent(ctx context.Context, merchantID, id, now int64) error
}
