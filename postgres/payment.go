package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/payport/payport"
	"github.com/payport/payport/internal/rowmap"
)

// paymentColumnList is rowmap.PaymentColumns split into names.
var paymentColumnList = rowmap.Names(rowmap.PaymentColumns)

// paymentInsert is the INSERT of InsertPayment: every column but id, with
// the values of rowmap.PaymentValues.
var paymentInsert = `INSERT INTO payments (` + strings.Join(paymentColumnList[1:], ", ") + `)
	VALUES (` + placeholders(1, len(paymentColumnList)-1) + `) ON CONFLICT DO NOTHING RETURNING id`

// paymentUpdate is the UPDATE of UpdatePayment: one "column = $n" for each
// of rowmap.PaymentUpdateColumns, in the order of
// rowmap.PaymentUpdateValues; the last parameter is the id.
var paymentUpdate = func() string {
	cols := rowmap.PaymentUpdateColumns()
	set := make([]string, 0, len(cols))
	for i, c := range cols {
		set = append(set, fmt.Sprintf("%s = $%d", c, i+1))
	}
	return `UPDATE payments SET ` + strings.Join(set, ", ") + fmt.Sprintf(` WHERE id = $%d`, len(set)+1)
}()

// sortColumns is the whitelist of ORDER BY columns for FindPayment.
var sortColumns = map[string]string{"started": "started_at", "paid": "paid_at", "updated": "updated_at"}

// PaymentByIMPUID implements payport.Reader.
func (q queries) PaymentByIMPUID(ctx context.Context, merchantID int64, impUID string) (payport.Payment, error) {
	return q.payment(ctx, "payment by imp_uid", `SELECT `+rowmap.PaymentColumns+` FROM payments
		WHERE merchant_id = $1 AND imp_uid = $2`, merchantID, impUID)
}

// FindPayment implements payport.Reader.
func (q queries) FindPayment(ctx context.Context, merchantID int64, merchantUID string, status payport.Status, sort payport.Sort) (payport.Payment, error) {
	col, ok := sortColumns[sort.Field]
	if !ok {
		return payport.Payment{}, fmt.Errorf("postgres: find payment: unknown sort field %q", sort.Field)
	}
	dir := "ASC"
	if sort.Descending {
		dir = "DESC"
	}
	return q.payment(ctx, "find payment", `SELECT `+rowmap.PaymentColumns+` FROM payments
		WHERE merchant_id = $1 AND merchant_uid = $2 AND ($3::text = '' OR status = $3::text)
		ORDER BY `+col+` `+dir+`, id DESC LIMIT 1`, merchantID, merchantUID, string(status))
}

// payment runs a query for one payment and loads its cancel history.
func (q queries) payment(ctx context.Context, op, query string, args ...any) (payport.Payment, error) {
	var p payport.Payment
	if err := q.q.QueryRow(ctx, query, args...).Scan(rowmap.PaymentFields(&p)...); err != nil {
		return payport.Payment{}, mapErr(op, err)
	}
	rows, err := q.q.Query(ctx, `SELECT `+rowmap.CancelColumns+`
		FROM payment_cancels WHERE payment_id = $1 ORDER BY id`, p.ID)
	if err != nil {
		return payport.Payment{}, mapErr(op, err)
	}
	p.CancelHistory, err = collect(rows, op, rowmap.CancelFields)
	if err != nil {
		return payport.Payment{}, err
	}
	return p, nil
}

// ClaimMerchantUID implements payport.Tx with INSERT … ON CONFLICT DO
// NOTHING; with exclusive, inserting nothing is ErrConflict. A concurrent
// claim of the same key waits for the first transaction to end and then
// conflicts (or inserts, when the first rolled back). The statement never
// fails on the conflict, so the transaction stays usable.
func (t *tx) ClaimMerchantUID(ctx context.Context, merchantID int64, merchantUID string, exclusive bool) error {
	const op = "claim merchant_uid"
	tag, err := t.q.Exec(ctx, `INSERT INTO merchant_uids (merchant_id, merchant_uid) VALUES ($1, $2)
		ON CONFLICT DO NOTHING`, merchantID, merchantUID)
	if err != nil {
		return mapErr(op, err)
	}
	if exclusive && tag.RowsAffected() == 0 {
		return conflict(op)
	}
	return nil
}

// InsertPayment implements payport.Tx. A taken imp_uid inserts nothing and
// is ErrConflict, leaving the transaction usable so that the caller can
// retry with another imp_uid.
func (t *tx) InsertPayment(ctx context.Context, p *payport.Payment) error {
	if err := t.q.QueryRow(ctx, paymentInsert, rowmap.PaymentValues(p)...).Scan(&p.ID); err != nil {
		return insertedOrConflict("insert payment", err)
	}
	for i := range p.CancelHistory {
		c := &p.CancelHistory[i]
		c.PaymentID = p.ID
		if err := t.InsertCancel(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// LockPayment implements payport.Tx with SELECT … FOR NO KEY UPDATE: a
// second LockPayment of the payment (on any node) waits until this
// transaction ends and then reads the committed row, so concurrent refunds
// are serialised. It does not conflict with the KEY SHARE locks of
// foreign-key checks.
func (t *tx) LockPayment(ctx context.Context, merchantID int64, impUID string) (payport.Payment, error) {
	return t.payment(ctx, "lock payment", `SELECT `+rowmap.PaymentColumns+` FROM payments
		WHERE merchant_id = $1 AND imp_uid = $2 FOR NO KEY UPDATE`, merchantID, impUID)
}

// UpdatePayment implements payport.Tx. The row is identified by p.ID; the
// CHECK constraint on cancel_amount refuses a cancel_amount above amount
// (an internal error: the service checks the cancellable amount first).
func (t *tx) UpdatePayment(ctx context.Context, p payport.Payment) error {
	args := append(rowmap.PaymentUpdateValues(&p), p.ID)
	tag, err := t.q.Exec(ctx, paymentUpdate, args...)
	return affected("update payment", tag, err)
}

// InsertCancel implements payport.Tx.
func (t *tx) InsertCancel(ctx context.Context, c *payport.CancelEntry) error {
	err := t.q.QueryRow(ctx, `INSERT INTO payment_cancels (payment_id, pg_tid, amount, cancelled_at, reason, receipt_url)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		c.PaymentID, c.PGTID, c.Amount, c.CancelledAt, c.Reason, c.ReceiptURL).Scan(&c.ID)
	return mapErr("insert cancel", err)
}
