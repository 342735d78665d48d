package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/payport/payport"
	"github.com/payport/payport/internal/rowmap"
)

// eventsWithHistory runs a query of rowmap.EventColumns (qualified e.)
// followed by the columns of a LEFT JOINed attempt (id, attempted_at,
// duration_ms, http_status, error; NULL when the event has none), ordered
// by event and then attempt id, and folds the rows into events with their
// History. One statement reads both, so the attempts agree with the events'
// counts.
func (q queries) eventsWithHistory(ctx context.Context, op, query string, args ...any) ([]payport.Event, error) {
	rows, err := q.q.Query(ctx, query, args...)
	if err != nil {
		return nil, mapErr(op, err)
	}
	defer rows.Close()
	out := []payport.Event{}
	for rows.Next() {
		var e payport.Event
		var aID, aAt, aDuration pgtype.Int8
		var aStatus pgtype.Int4
		var aError pgtype.Text
		if err := rows.Scan(append(rowmap.EventFields(&e), &aID, &aAt, &aDuration, &aStatus, &aError)...); err != nil {
			return nil, mapErr(op, err)
		}
		out = rowmap.AppendEventRow(out, e, payport.Attempt{ID: aID.Int64, AttemptedAt: aAt.Int64,
			DurationMS: aDuration.Int64, HTTPStatus: int(aStatus.Int32), Error: aError.String}, aID.Valid)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(op, err)
	}
	return out, nil
}

// eventHistoryJoin follows the FROM clause's event subquery e in the
// queries of eventsWithHistory.
const eventHistoryJoin = ` LEFT JOIN webhook_attempts a ON a.event_id = e.id`

// eventHistoryColumns are the attempt columns of eventsWithHistory.
const eventHistoryColumns = `a.id, a.attempted_at, a.duration_ms, a.http_status, a.error`

// EventsByMerchant implements payport.Reader: the newest limit events (by
// id) and their attempts, read in one statement.
func (q queries) EventsByMerchant(ctx context.Context, merchantID int64, limit int) ([]payport.Event, error) {
	return q.eventsWithHistory(ctx, "events by merchant", `SELECT `+rowmap.Prefixed("e.", rowmap.EventColumns)+`, `+eventHistoryColumns+`
		FROM (SELECT `+rowmap.EventColumns+` FROM webhook_events WHERE merchant_id = $1 ORDER BY id DESC LIMIT $2) e`+
		eventHistoryJoin+`
		ORDER BY e.id DESC, a.id`, merchantID, limit)
}

// EventByID implements payport.Reader.
func (q queries) EventByID(ctx context.Context, merchantID, id int64) (payport.Event, error) {
	const op = "event by id"
	list, err := q.eventsWithHistory(ctx, op, `SELECT `+rowmap.Prefixed("e.", rowmap.EventColumns)+`, `+eventHistoryColumns+`
		FROM webhook_events e`+eventHistoryJoin+`
		WHERE e.id = $1 AND e.merchant_id = $2
		ORDER BY e.id, a.id`, id, merchantID)
	if err != nil {
		return payport.Event{}, err
	}
	if len(list) == 0 {
		return payport.Event{}, mapErr(op, pgx.ErrNoRows)
	}
	return list[0], nil
}

// InsertEvent implements payport.Tx. A taken webhook_id inserts nothing and
// is ErrConflict, leaving the transaction usable.
func (t *tx) InsertEvent(ctx context.Context, e *payport.Event) error {
	err := t.q.QueryRow(ctx, `INSERT INTO webhook_events (webhook_id, merchant_id, url, type, imp_uid,
		merchant_uid, status, cancellation_id, created_at, state, attempts, next_attempt_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING RETURNING id`,
		e.WebhookID, e.MerchantID, e.URL, e.Type, e.IMPUID, e.MerchantUID, e.Status, e.CancelID, e.CreatedAt,
		e.State, e.Attempts, e.NextAttemptAt).Scan(&e.ID)
	return insertedOrConflict("insert event", err)
}

// ClaimEvents implements payport.Tx with one UPDATE … RETURNING whose inner
// SELECT locks the candidates FOR UPDATE SKIP LOCKED: two dispatchers
// claiming at once (on any nodes) lock disjoint sets, and each sets
// claimed_until on its own, so no event is leased twice. The inner SELECT
// reads the partial index webhook_events_due (next_attempt_at, id WHERE
// state = 'pending') from its start up to now, skipping rows under a live
// lease (claimed_until > now; 0 is no lease). A dispatcher that dies leaves
// a lease that simply runs out.
func (t *tx) ClaimEvents(ctx context.Context, now, leaseUntil int64, limit int) ([]payport.Event, error) {
	const op = "claim events"
	rows, err := t.q.Query(ctx, `UPDATE webhook_events SET claimed_until = $1
		WHERE id IN (SELECT id FROM webhook_events
			WHERE state = 'pending' AND next_attempt_at <= $2 AND claimed_until <= $2
			ORDER BY next_attempt_at, id LIMIT $3
			FOR UPDATE SKIP LOCKED)
		RETURNING `+rowmap.EventColumns, leaseUntil, now, limit)
	if err != nil {
		return nil, mapErr(op, err)
	}
	list, err := collect(rows, op, rowmap.EventFields)
	if err != nil {
		return nil, err
	}
	rowmap.SortEventsByDue(list) // RETURNING yields rows in no defined order
	return list, nil
}

// RecordAttempt implements payport.Tx. The event is updated first, so an
// unknown event is ErrNotFound rather than a foreign-key failure.
func (t *tx) RecordAttempt(ctx context.Context, a *payport.Attempt, state string, nextAttemptAt int64) error {
	const op = "record attempt"
	tag, err := t.q.Exec(ctx, `UPDATE webhook_events
		SET state = $1, attempts = attempts + 1, next_attempt_at = $2, claimed_until = 0 WHERE id = $3`,
		state, nextAttemptAt, a.EventID)
	if err := affected(op, tag, err); err != nil {
		return err
	}
	err = t.q.QueryRow(ctx, `INSERT INTO webhook_attempts (event_id, attempted_at, duration_ms, http_status, error)
		VALUES ($1, $2, $3, $4, $5) RETURNING id`, a.EventID, a.AttemptedAt, a.DurationMS, a.HTTPStatus, a.Error).Scan(&a.ID)
	return mapErr(op, err)
}

// RedeliverEvent implements payport.Tx.
func (t *tx) RedeliverEvent(ctx context.Context, merchantID, id, now int64) error {
	tag, err := t.q.Exec(ctx, `UPDATE webhook_events
		SET state = 'pending', attempts = 0, next_attempt_at = $1, claimed_until = 0
		WHERE id = $2 AND merchant_id = $3`, now, id, merchantID)
	return affected("redeliver event", tag, err)
}

// OutboxDepth implements payport.Reader.
func (q queries) OutboxDepth(ctx context.Context) (int, error) {
	var n int
	err := q.q.QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE state = 'pending'`).Scan(&n)
	return n, mapErr("outbox depth", err)
}
