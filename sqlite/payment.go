package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/payport/payport"
	"github.com/payport/payport/internal/rowmap"
)

// paymentUpdateSet is the SET list of UpdatePayment, one "column = ?" for
// each of rowmap.PaymentUpdateColumns, in the order of
// rowmap.PaymentUpdateValues.
var paymentUpdateSet = func() string {
	set := rowmap.PaymentUpdateColumns()
	for i, c := range set {
		set[i] = c + " = ?"
	}
	return strings.Join(set, ", ")
}()

// sortColumns is the whitelist of ORDER BY columns for FindPayment.
var sortColumns = map[string]string{"started": "started_at", "paid": "paid_at", "updated": "updated_at"}

// PaymentByIMPUID implements payport.Reader.
func (q queries) PaymentByIMPUID(ctx context.Context, merchantID int64, impUID string) (payport.Payment, error) {
	return q.payment(ctx, "payment by imp_uid", `SELECT `+rowmap.PaymentColumns+` FROM payments
		WHERE merchant_id = ? AND imp_uid = ?`, merchantID, impUID)
}

// FindPayment implements payport.Reader.
func (q queries) FindPayment(ctx context.Context, merchantID int64, merchantUID string, status payport.Status, sort payport.Sort) (payport.Payment, error) {
	col, ok := sortColumns[sort.Field]
	if !ok {
		return payport.Payment{}, fmt.Errorf("sqlite: find payment: unknown sort field %q", sort.Field)
	}
	dir := "ASC"
	if sort.Descending {
		dir = "DESC"
	}
	return q.payment(ctx, "find payment", `SELECT `+rowmap.PaymentColumns+` FROM payments
		WHERE merchant_id = ? AND merchant_uid = ? AND (? = '' OR status = ?)
		ORDER BY `+col+` `+dir+`, id DESC LIMIT 1`, merchantID, merchantUID, status, status)
}

// payment runs a query for one payment and loads its cancel history.
func (q queries) payment(ctx context.Context, op, query string, args ...any) (payport.Payment, error) {
	var p payport.Payment
	if err := q.q.QueryRowContext(ctx, query, args...).Scan(rowmap.PaymentFields(&p)...); err != nil {
		return payport.Payment{}, mapErr(op, err)
	}
	if p.CancelAmount == 0 { // cancel_amount is the sum of the history: nothing to read
		p.CancelHistory = []payport.CancelEntry{}
		return p, nil
	}
	rows, err := q.q.QueryContext(ctx, `SELECT `+rowmap.CancelColumns+`
		FROM payment_cancels WHERE payment_id = ? ORDER BY id`, p.ID)
	if err != nil {
		return payport.Payment{}, mapErr(op, err)
	}
	p.CancelHistory, err = collect(rows, op, rowmap.CancelFields)
	return p, err
}

// ClaimMerchantUID implements payport.Tx.
func (t *tx) ClaimMerchantUID(ctx context.Context, merchantID int64, merchantUID string, exclusive bool) error {
	query := `INSERT INTO merchant_uids (merchant_id, merchant_uid) VALUES (?, ?)`
	if !exclusive {
		query += ` ON CONFLICT DO NOTHING`
	}
	_, err := t.q.ExecContext(ctx, query, merchantID, merchantUID)
	return mapErr("claim merchant_uid", err)
}

// InsertPayment implements payport.Tx.
func (t *tx) InsertPayment(ctx context.Context, p *payport.Payment) error {
	vals := rowmap.PaymentValues(p)
	err := t.q.QueryRowContext(ctx, `INSERT INTO payments (`+rowmap.PaymentColumns[len("id, "):]+`)
		VALUES (`+placeholders(len(vals))+`) RETURNING id`, vals...).Scan(&p.ID)
	if err != nil {
		return mapErr("insert payment", err)
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

// LockPayment implements payport.Tx. On SQLite the transaction already
// holds the database's only write lock, so reading is enough: no other
// transaction can change the payment before this one ends.
func (t *tx) LockPayment(ctx context.Context, merchantID int64, impUID string) (payport.Payment, error) {
	return t.payment(ctx, "lock payment", `SELECT `+rowmap.PaymentColumns+` FROM payments
		WHERE merchant_id = ? AND imp_uid = ?`, merchantID, impUID)
}

// UpdatePayment implements payport.Tx. The row is identified by p.ID; the
// CHECK constraint on cancel_amount refuses a cancel_amount above amount
// (an internal error: the service checks the cancellable amount first).
func (t *tx) UpdatePayment(ctx context.Context, p payport.Payment) error {
	args := append(rowmap.PaymentUpdateValues(&p), p.ID)
	res, err := t.q.ExecContext(ctx, `UPDATE payments SET `+paymentUpdateSet+` WHERE id = ?`, args...)
	return affected("update payment", res, err)
}

// InsertCancel implements payport.Tx.
func (t *tx) InsertCancel(ctx context.Context, c *payport.CancelEntry) error {
	err := t.q.QueryRowContext(ctx, `INSERT INTO payment_cancels (payment_id, pg_tid, amount, cancelled_at, reason, receipt_url)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, c.PaymentID, c.PGTID, c.Amount, c.CancelledAt, c.Reason, c.ReceiptURL).Scan(&c.ID)
	return mapErr("insert cancel", err)
}

func placeholders(n int) string {
	s := make([]byte, 0, 3*n)
	for i := 0; i < n; i++ {
		if i > 0 {
			s = append(s, ", "...)
		}
		s = append(s, '?')
	}
	return string(s)
}
