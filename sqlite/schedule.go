package sqlite

import (
	"context"
	"errors"

	"github.com/payport/payport"
	"github.com/payport/payport/internal/rowmap"
)

// schedules runs a query returning rowmap.ScheduleColumns.
func (q queries) schedules(ctx context.Context, op, query string, args ...any) ([]payport.Schedule, error) {
	rows, err := q.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, mapErr(op, err)
	}
	return collect(rows, op, rowmap.ScheduleFields)
}

// ScheduleByMerchantUID implements payport.Reader.
func (q queries) ScheduleByMerchantUID(ctx context.Context, merchantID int64, merchantUID string) (payport.Schedule, error) {
	var s payport.Schedule
	err := q.q.QueryRowContext(ctx, `SELECT `+rowmap.ScheduleColumns+` FROM schedules
		WHERE merchant_id = ? AND merchant_uid = ?`, merchantID, merchantUID).Scan(rowmap.ScheduleFields(&s)...)
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
		WHERE merchant_id = ? AND customer_uid = ? AND schedule_at >= ? AND schedule_at < ?
			AND (? = '' OR status = ?)`
	args := []any{sq.MerchantID, sq.CustomerUID, sq.From, sq.To, string(sq.Status), string(sq.Status)}
	limit := sq.Limit
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	offset := max(sq.Offset, 0)
	rows, err := q.q.QueryContext(ctx, `SELECT `+rowmap.ScheduleColumns+`, count(*) OVER ()`+where+`
		ORDER BY schedule_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
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
		if err := q.q.QueryRowContext(ctx, `SELECT count(*)`+where, args...).Scan(&total); err != nil {
			return nil, 0, mapErr(op, err)
		}
	}
	return list, total, nil
}

// InsertSchedule implements payport.Tx. The UNIQUE (merchant_id,
// merchant_uid) constraint makes a reused merchant_uid ErrConflict.
func (t *tx) InsertSchedule(ctx context.Context, s *payport.Schedule) error {
	err := t.q.QueryRowContext(ctx, `INSERT INTO schedules (merchant_id, customer_uid, merchant_uid, imp_uid,
		schedule_at, executed_at, revoked_at, amount, tax_free, currency, name, buyer_name, buyer_email, buyer_tel,
		buyer_addr, buyer_postcode, custom_data, notice_url, status, payment_status, fail_reason)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		s.MerchantID, s.CustomerUID, s.MerchantUID, s.IMPUID, s.ScheduleAt, s.ExecutedAt, s.RevokedAt, s.Amount,
		s.TaxFree, string(s.Currency), s.Name, s.BuyerName, s.BuyerEmail, s.BuyerTel, s.BuyerAddr, s.BuyerPostcode,
		s.CustomData, s.NoticeURL, string(s.Status), string(s.PaymentStatus), s.FailReason).Scan(&s.ID)
	return mapErr("insert schedule", err)
}

// DueSchedules implements payport.Tx. On SQLite the transaction holds the
// database's only write lock, so claimers are serialised and no row
// locking (FOR UPDATE SKIP LOCKED) is needed: a second claimer runs after
// the first committed and sees its schedules executed.
//
// The query reads the partial index schedules_due (schedule_at, id WHERE
// status = 'scheduled') up to now plus the largest clock offset of any
// merchant, a bound computed once, so only that prefix of the index is
// visited however many future schedules exist; the exact per-merchant bound
// (now plus the schedule's own merchant's offset) then filters that range.
func (t *tx) DueSchedules(ctx context.Context, now int64, limit int) ([]payport.Schedule, error) {
	return t.schedules(ctx, "due schedules", `SELECT `+rowmap.Prefixed("s.", rowmap.ScheduleColumns)+`
		FROM schedules s JOIN merchants m ON m.id = s.merchant_id
		WHERE s.status = 'scheduled'
			AND s.schedule_at <= ? + (SELECT coalesce(max(clock_offset), 0) FROM merchants)
			AND s.schedule_at <= ? + m.clock_offset
		ORDER BY s.schedule_at, s.id LIMIT ?`, now, now, limit)
}

// FinishSchedule implements payport.Tx: one conditional UPDATE whose row
// count is the claim.
func (t *tx) FinishSchedule(ctx context.Context, s payport.Schedule) (bool, error) {
	res, err := t.q.ExecContext(ctx, `UPDATE schedules SET status = 'executed', imp_uid = ?, executed_at = ?,
			payment_status = ?, fail_reason = ?
		WHERE id = ? AND merchant_id = ? AND status = 'scheduled'`,
		s.IMPUID, s.ExecutedAt, string(s.PaymentStatus), s.FailReason, s.ID, s.MerchantID)
	if err != nil {
		return false, mapErr("finish schedule", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, mapErr("finish schedule", err)
	}
	return n == 1, nil
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
	query := `UPDATE schedules SET status = 'revoked', revoked_at = ?
		WHERE merchant_id = ? AND status = 'scheduled'`
	args := []any{at, merchantID}
	if customerUID != "" {
		query += ` AND customer_uid = ?`
		args = append(args, customerUID)
	}
	if len(merchantUIDs) > 0 {
		query += ` AND merchant_uid IN (` + placeholders(len(merchantUIDs)) + `)`
		for _, u := range merchantUIDs {
			args = append(args, u)
		}
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
	_, err := t.q.ExecContext(ctx, `UPDATE schedules SET payment_status = ?
		WHERE merchant_id = ? AND imp_uid = ? AND imp_uid <> '' AND status = 'executed'`,
		string(status), merchantID, impUID)
	return mapErr("set schedule payment status", err)
}
