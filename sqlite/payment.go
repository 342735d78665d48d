package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/payport/payport"
)

// paymentColumns lists the payments columns in the order of paymentFields.
const paymentColumns = `id, merchant_id, imp_uid, merchant_uid, pay_method, channel, pg_provider, emb_pg_provider,
	pg_tid, pg_id, escrow, apply_num, bank_code, bank_name, card_code, card_name, card_quota, card_number,
	card_type, vbank_code, vbank_name, vbank_num, vbank_holder, vbank_date, vbank_issued_at, name, amount,
	cancel_amount, currency, buyer_name, buyer_email, buyer_tel, buyer_addr, buyer_postcode, custom_data,
	user_agent, status, started_at, paid_at, failed_at, cancelled_at, fail_reason, cancel_reason, receipt_url,
	cash_receipt_issued, customer_uid, customer_uid_usage, notice_url, updated_at`

// paymentFields returns pointers to p's fields in column order, for Scan and,
// dereferenced, for INSERT.
func paymentFields(p *payport.Payment) []any {
	return []any{&p.ID, &p.MerchantID, &p.IMPUID, &p.MerchantUID, &p.PayMethod, &p.Channel, &p.PGProvider,
		&p.EmbPGProvider, &p.PGTID, &p.PGID, &p.Escrow, &p.ApplyNum, &p.BankCode, &p.BankName, &p.CardCode,
		&p.CardName, &p.CardQuota, &p.CardNumber, &p.CardType, &p.VBankCode, &p.VBankName, &p.VBankNum,
		&p.VBankHolder, &p.VBankDate, &p.VBankIssuedAt, &p.Name, &p.Amount, &p.CancelAmount, &p.Currency,
		&p.BuyerName, &p.BuyerEmail, &p.BuyerTel, &p.BuyerAddr, &p.BuyerPostcode, &p.CustomData, &p.UserAgent,
		&p.Status, &p.StartedAt, &p.PaidAt, &p.FailedAt, &p.CancelledAt, &p.FailReason, &p.CancelReason,
		&p.ReceiptURL, &p.CashReceiptIssued, &p.CustomerUID, &p.CustomerUIDUsage, &p.NoticeURL, &p.UpdatedAt}
}

// insertValues dereferences paymentFields, leaving out the id.
func insertValues(p *payport.Payment) []any {
	ptrs := paymentFields(p)[1:]
	vals := make([]any, len(ptrs))
	for i, ptr := range ptrs {
		switch v := ptr.(type) {
		case *string:
			vals[i] = *v
		case *int64:
			vals[i] = *v
		case *int:
			vals[i] = *v
		case *bool:
			vals[i] = *v
		case *payport.Currency:
			vals[i] = string(*v)
		case *payport.Status:
			vals[i] = string(*v)
		default:
			panic(fmt.Sprintf("sqlite: payment field of type %T", ptr))
		}
	}
	return vals
}

// immutablePaymentColumns is the number of leading columns of
// paymentColumns that UpdatePayment never writes: id, merchant_id, imp_uid
// and merchant_uid.
const immutablePaymentColumns = 4

// paymentUpdateSet is the SET list of UpdatePayment: every column of
// paymentColumns after the immutable ones, in order, so that it stays in
// step with paymentFields (and thus with insertValues) by construction.
var paymentUpdateSet = func() string {
	cols := strings.Split(paymentColumns, ",")
	for i := range cols {
		cols[i] = strings.TrimSpace(cols[i])
	}
	if strings.Join(cols[:immutablePaymentColumns], ",") != "id,merchant_id,imp_uid,merchant_uid" {
		panic("sqlite: paymentColumns must begin with id, merchant_id, imp_uid, merchant_uid")
	}
	set := cols[immutablePaymentColumns:]
	for i, c := range set {
		set[i] = c + " = ?"
	}
	return strings.Join(set, ", ")
}()

// sortColumns is the whitelist of ORDER BY columns for FindPayment.
var sortColumns = map[string]string{"started": "started_at", "paid": "paid_at", "updated": "updated_at"}

// PaymentByIMPUID implements payport.Reader.
func (q queries) PaymentByIMPUID(ctx context.Context, merchantID int64, impUID string) (payport.Payment, error) {
	return q.payment(ctx, "payment by imp_uid", `SELECT `+paymentColumns+` FROM payments
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
	return q.payment(ctx, "find payment", `SELECT `+paymentColumns+` FROM payments
		WHERE merchant_id = ? AND merchant_uid = ? AND (? = '' OR status = ?)
		ORDER BY `+col+` `+dir+`, id DESC LIMIT 1`, merchantID, merchantUID, status, status)
}

// payment runs a query for one payment and loads its cancel history.
func (q queries) payment(ctx context.Context, op, query string, args ...any) (payport.Payment, error) {
	var p payport.Payment
	if err := q.q.QueryRowContext(ctx, query, args...).Scan(paymentFields(&p)...); err != nil {
		return payport.Payment{}, mapErr(op, err)
	}
	if p.CancelAmount == 0 { // cancel_amount is the sum of the history: nothing to read
		p.CancelHistory = []payport.CancelEntry{}
		return p, nil
	}
	rows, err := q.q.QueryContext(ctx, `SELECT id, payment_id, pg_tid, amount, cancelled_at, reason, receipt_url
		FROM payment_cancels WHERE payment_id = ? ORDER BY id`, p.ID)
	if err != nil {
		return payport.Payment{}, mapErr(op, err)
	}
	p.CancelHistory, err = collect(rows, op, func(r *sql.Rows) (payport.CancelEntry, error) {
		var c payport.CancelEntry
		err := r.Scan(&c.ID, &c.PaymentID, &c.PGTID, &c.Amount, &c.CancelledAt, &c.Reason, &c.ReceiptURL)
		return c, err
	})
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
	err := t.q.QueryRowContext(ctx, `INSERT INTO payments (`+paymentColumns[len("id, "):]+`)
		VALUES (`+placeholders(len(paymentFields(p))-1)+`) RETURNING id`, insertValues(p)...).Scan(&p.ID)
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
	return t.payment(ctx, "lock payment", `SELECT `+paymentColumns+` FROM payments
		WHERE merchant_id = ? AND imp_uid = ?`, merchantID, impUID)
}

// UpdatePayment implements payport.Tx. The row is identified by p.ID; the
// CHECK constraint on cancel_amount refuses a cancel_amount above amount
// (an internal error: the service checks the cancellable amount first).
func (t *tx) UpdatePayment(ctx context.Context, p payport.Payment) error {
	args := append(insertValues(&p)[immutablePaymentColumns-1:], p.ID)
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
