// Package sqlite is payport's embedded storage engine: one SQLite file
// (pure Go driver, no cgo) in WAL mode with foreign keys on and a busy
// timeout. Writes go through a pool of exactly one connection whose
// transactions begin IMMEDIATE, so write transactions are serialised: that
// single writer is what makes the read-then-write rules of the service (token
// issuance, merchant_uid claims, refund checks) safe on this engine. Reads
// use a separate pool of query-only connections and run concurrently.
//
// The schema lives in embedded goose migrations (migrations/*.sql).
package sqlite
