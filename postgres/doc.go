// Package postgres is payport's storage engine for scale: a
// payport.Store on one PostgreSQL database that any number of stateless
// payport nodes share. It uses a pgx connection pool (pgxpool); the schema
// lives in embedded goose migrations (migrations/*.sql) that it owns, as it
// owns all of its SQL. The SQLite engine is the reference implementation
// of the same contract, and both run the conformance suite in storetest.
//
// A URL may name a schema with search_path; every table, goose's version
// table included, then lives there (Migrate creates it when missing), so
// several deployments, or parallel tests, can share one database.
//
// # Concurrency
//
// Every Update is one READ COMMITTED transaction. No statement relies on a
// stronger isolation level: each rule that must hold across nodes is
// enforced by the database, with one of four tools.
//
//   - Row locks. LockMerchant and LockPayment read their row with SELECT …
//     FOR NO KEY UPDATE and hold it until the transaction ends, so token
//     issuance for one key pair and refunds of one payment are serialised
//     across nodes; the second locker waits and then reads the committed
//     row. NO KEY UPDATE excludes every other locker exactly like FOR
//     UPDATE, but not the KEY SHARE locks of foreign-key checks, so a
//     merchant's payments, tokens and events are written while its row is
//     locked.
//   - Uniqueness constraints. Every "already taken" rule (imp_key, API key,
//     PG setting, token hash, merchant_uid claims, imp_uid, a schedule's
//     merchant_uid, webhook_id) is a UNIQUE or PRIMARY KEY constraint. The
//     inserts use ON CONFLICT DO NOTHING and report an insert of nothing as
//     payport.ErrConflict: a concurrent insert of the same key waits for
//     the first transaction and then conflicts, and, unlike a failed
//     statement, the conflict leaves the transaction usable, as the service
//     needs when it retries a random imp_uid in the same transaction. A
//     unique_violation (SQLSTATE 23505) raised anyway maps to ErrConflict
//     too.
//   - Conditional updates whose row count is the claim. UseToken,
//     FinishSchedule and RevokeSchedules change a row only in the state
//     they expect (unused and unrevoked, still scheduled); a concurrent
//     writer waits for the row lock, and READ COMMITTED re-evaluates its
//     WHERE on the committed row, so of two racing claims exactly one
//     changes it. RecordAttempt and RedeliverEvent are single UPDATEs
//     whose row count tells an unknown event (ErrNotFound).
//   - SKIP LOCKED. DueSchedules selects due schedules FOR UPDATE OF the
//     schedule rows SKIP LOCKED, so schedulers on several nodes take
//     disjoint batches and keep them locked while they execute them in the
//     same transaction. ClaimEvents leases events with UPDATE … WHERE id
//     IN (SELECT … FOR UPDATE SKIP LOCKED LIMIT n) RETURNING, so two
//     dispatchers never lease one event; the lease (claimed_until) outlives
//     the transaction, and a crashed dispatcher's lease runs out.
//
// Migrate holds a session advisory lock (one per database and search_path)
// on a connection of its own, so nodes starting at once migrate one after
// the other.
//
// Errors are mapped by SQLSTATE, never by text: 23505 is ErrConflict,
// pgx.ErrNoRows ErrNotFound; a CHECK violation (23514) stays an internal
// error naming the operation and the constraint, as does everything else,
// deadlocks included (fn may have called a gateway, so Update never
// retries it).
//
// # Differences from the SQLite schema
//
// The table SQLite calls pg_settings is merchant_pg_settings here, because
// PostgreSQL resolves unqualified names in pg_catalog first, where a
// system view of that name lives. api_tokens has a seq identity column,
// the insertion order that SQLite's rowid gives, to break ties between
// tokens issued in the same second. Migrations start at version 3, the
// schema of SQLite's 00001 to 00003, so that a schema version means the same
// on both engines.
package postgres
