package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/payport/payport"
	"github.com/payport/payport/internal/rowmap"
)

// schedules runs a query returning rowmap.ScheduleColumns.
func (q queries) schedules(ctx context.Context, op, query string, args ...any) ([]payport.Schedule, error) {
	rows, err := q.q.Query(ctx, query, args...)
	if err != nil {
		return nil, mapErr(op, err)
	}
	return collect(rows, op, rowmap.ScheduleFields)
}

// ScheduleByMerchantUID implements payport.Reader.
func (q queries) ScheduleByMerchantUID(ctx context.Context, merchantID int64, merchantUID string) (payport.Schedule, error) {
	var s payport.Schedule
	err := q.q.QueryRow(ctx, `SELECT `+rowmap.ScheduleColumns+` FROM schedules
		WHERE merchant_id = $1 AND merchant_uid = $2`, merchantID, merchantUID).Scan(rowmap.ScheduleFields(&s)...)
	if err != nil {
		return payport.Schedule{}, mapErr("schedule by merchant_uid", err)
	}
	return s, nil
}

// Schedules implements payport.Reader. The customer is matched exactly (a
// query selects one billing key's schedules); a Limit of 0 or less means no
// limit. The page and the total come from one statement (a window count),
// so they agree even while schedules are added.
func (q queries) Schedules(ctx context.Context, sq payport.ScheduleQuery) ([]payport.Schedule, int, error) {
	const op = "schedules"
	const where = ` FROM schedules
		WHERE merchant_id = $1 AND customer_uid = $2 AND schedule_at >= $3 AND schedule_at < $4
			AND ($5::text = '' OR status = $5::text)`
	args := []any{sq.MerchantID, sq.CustomerUID, sq.From, sq.To, string(sq.Status)}
	var limit *int64 // NULL: no limit
	if sq.Limit > 0 {
		l := int64(sq.Limit)
		limit = &l
	}
	offset := int64(max(sq.Offset, 0))
	rows, err := q.q.Query(ctx, `SELECT `+rowmap.ScheduleColumns+`, count(*) OVER ()`+where+`
		ORDER BY schedule_at DESC, id DESC LIMIT $6 OFFSET $7`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, mapErr(op, err)
	}
	total := 0
	list, err := collect(rows, op, func(s *payport.Schedule) []any {
		return append(rowmap.ScheduleFields(s), &total)
	})
	if err != nil {
		return nil, 0, err
	}
	if len(list) == 0 && offset > 0 {
		// A page past the end has no row to carry the count.
		if err := q.q.QueryRow(ctx, `SELECT count(*)`+where, args...).Scan(&total); err != nil {
			return nil, 0, mapErr(op, err)
		}
	}
	return list, total, nil
}

// InsertSchedule implements payport.Tx. The UNIQUE (merchant_id,
// merchant_uid) constraint makes a reused merchant_uid ErrConflict; the
// statement inserts nothing rather than failing, so the transaction stays
// usable.
func (t *tx) InsertSchedule(ctx context.Context, s *payport.Schedule) error {
	err := t.q.QueryRow(ctx, `INSERT INTO schedules (merchant_id, customer_uid, merchant_uid, imp_uid,
		schedule_at, executed_at, revoked_at, amount, tax_free, currency, name, buyer_name, buyer_email, buyer_tel,
		buyer_addr, buyer_postcode, custom_data, notice_url, status, payment_status, fail_reason)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
		ON CONFLICT DO NOTHING RETURNING id`,
		s.MerchantID, s.CustomerUID, s.MerchantUID, s.IMPUID, s.ScheduleAt, s.ExecutedAt, s.RevokedAt, s.Amount,
		s.TaxFree, string(s.Currency), s.Name, s.BuyerName, s.BuyerEmail, s.BuyerTel, s.BuyerAddr, s.BuyerPostcode,
		s.CustomData, s.NoticeURL, string(s.Status), string(s.PaymentStatus), s.FailReason).Scan(&s.ID)
	return insertedOrConflict("insert schedule", err)
}

// DueSchedules implements payport.Tx. The rows are locked FOR UPDATE and
// rows locked by another transaction are skipped (SKIP LOCKED), so nodes
// polling at once claim disjoint batches: a batch stays claimed until the
// transaction that executes it ends, and FinishSchedule's conditional
// update guards against a schedule revoked meanwhile. LIMIT applies to the
// rows actually locked, so a batch is full even when other nodes hold some.
//
// The query reads the partial index schedules_due (schedule_at, id WHERE
// status = 'scheduled') up to now plus the largest clock offset of any
// merchant, a bound computed once (an index lookup on
// merchants_clock_offset), so only that prefix of the index is visited
// however many future schedules exist; the exact per-merchant bound (now
// plus the schedule's own merchant's offset) then filters that range.
func (t *tx) DueSchedules(ctx context.Context, now int64, limit int) ([]payport.Schedule, error) {
	return t.schedules(ctx, "due schedules", `SELECT `+rowmap.Prefixed("s.", rowmap.ScheduleColumns)+`
		FROM schedules s JOIN merchants m ON m.id = s.merchant_id
		WHERE s.status = 'scheduled'
			AND s.schedule_at <= $1::bigint + (SELECT coalesce(max(clock_offset), 0) FROM merchants)
			AND s.schedule_at <= $1::bigint + m.clock_offset
		ORDER BY s.schedule_at, s.id
		LIMIT $2
		FOR UPDATE OF s SKIP LOCKED`, now, limit)
}

// FinishSchedule implements payport.Tx: one conditional UPDATE whose row
// count is the claim. A concurrent revocation of the row waits for the row
// lock and then finds it no longer scheduled, and vice versa.
func (t *tx) FinishSchedule(ctx context.Context, s payport.Schedule) (bool, error) {
	tag, err := t.q.Exec(ctx, `UPDATE schedules SET status = 'executed', imp_uid = $1, executed_at = $2,
			payment_status = $3, fail_reason = $4
		WHERE id = $5 AND merchant_id = $6 AND status = 'scheduled'`,
		s.IMPUID, s.ExecutedAt, string(s.PaymentStatus), s.FailReason, s.ID, s.MerchantID)
	if err != nil {
		return false, mapErr("finish schedule", err)
	}
	return tag.RowsAffected() == 1, nil
}

// errRevokeUnfiltered refuses a RevokeSchedules call that would revoke
// every schedule of the merchant.
var errRevokeUnfiltered = errors.New("neither customer_uid nor merchant_uids given")

// RevokeSchedules implements payport.Tx: one conditional UPDATE … RETURNING,
// so a schedule executed first is left alone, and vice versa.
func (t *tx) RevokeSchedules(ctx context.Context, merchantID int64, customerUID string, merchantUIDs []string, at int64) ([]payport.Schedule, error) {
	const op = "revoke schedules"
	if customerUID == "" && len(merchantUIDs) == 0 {
		return nil, mapErr(op, errRevokeUnfiltered)
	}
	query := `UPDATE schedules SET status = 'revoked', revoked_at = $1
		WHERE merchant_id = $2 AND status = 'scheduled'`
	args := []any{at, merchantID}
	if customerUID != "" {
		args = append(args, customerUID)
		query += fmt.Sprintf(` AND customer_uid = $%d`, len(args))
	}
	if len(merchantUIDs) > 0 {
		args = append(args, merchantUIDs)
		query += fmt.Sprintf(` AND merchant_uid = ANY($%d::text[])`, len(args))
	}
	list, err := t.schedules(ctx, op, query+` RETURNING `+rowmap.ScheduleColumns, args...)
	if err != nil {
		return nil, err
	}
	rowmap.SortSchedules(list)
	return list, nil
}

// SetSchedulePaymentStatus implements payport.Tx.
func (t *tx) SetSchedulePaymentStatus(ctx context.Context, merchantID int64, impUID string, status payport.Status) error {
	if impUID == "" {
		return nil // no executed schedule has an empty imp_uid
	}
	_, err := t.q.Exec(ctx, `UPDATE schedules SET payment_status = $1
		WHERE merchant_id = $2 AND imp_uid = $3 AND imp_uid <> '' AND status = 'executed'`,
		string(status), merchantID, impUID)
	return mapErr("set schedule payment status", err)
}
