package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

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
// dereferenced, for INSERT and UPDATE.
func paymentFields(p *payport.Payment) []any {
	return []any{&p.ID, &p.MerchantID, &p.IMPUID, &p.MerchantUID, &p.PayMethod, &p.Channel, &p.PGProvider,
		&p.EmbPGProvider, &p.PGTID, &p.PGID, &p.Escrow, &p.ApplyNum, &p.BankCode, &p.BankName, &p.CardCode,
		&p.CardName, &p.CardQuota, &p.CardNumber, &p.CardType, &p.VBankCode, &p.VBankName, &p.VBankNum,
		&p.VBankHolder, &p.VBankDate, &p.VBankIssuedAt, &p.Name, &p.Amount, &p.CancelAmount, &p.Currency,
		&p.BuyerName, &p.BuyerEmail, &p.BuyerTel, &p.BuyerAddr, &p.BuyerPostcode, &p.CustomData, &p.UserAgent,
		&p.Status, &p.StartedAt, &p.PaidAt, &p.FailedAt, &p.CancelledAt, &p.FailReason, &p.CancelReason,
		&p.ReceiptURL, &p.CashReceiptIssued, &p.CustomerUID, &p.CustomerUIDUsage, &p.NoticeURL, &p.UpdatedAt}
}

// paymentValues dereferences paymentFields, leaving out the id.
func paymentValues(p *payport.Payment) []any {
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
			panic(fmt.Sprintf("postgres: payment field of type %T", ptr))
		}
	}
	return vals
}

// paymentColumnList is paymentColumns split into names.
var paymentColumnList = func() []string {
	cols := strings.Split(paymentColumns, ",")
	for i := range cols {
		cols[i] = strings.TrimSpace(cols[i])
	}
	return cols
}()

// immutablePaymentColumns is the number of leading columns of
// paymentColumns that UpdatePayment never writes: id, merchant_id, imp_uid
// and merchant_uid.
const immutablePaymentColumns = 4

// paymentInsert is the INSERT of InsertPayment: every column but id, with
// the values of paymentValues.
var paymentInsert = `INSERT INTO payments (` + strings.Join(paymentColumnList[1:], ", ") + `)
	VALUES (` + placeholders(1, len(paymentColumnList)-1) + `) ON CONFLICT DO NOTHING RETURNING id`

// paymentUpdate is the UPDATE of UpdatePayment: every column of
// paymentColumns after the immutable ones, in order, so that it stays in
// step with paymentFields (and thus with paymentValues) by construction;
// the last parameter is the id.
var paymentUpdate = func() string {
	if strings.Join(paymentColumnList[:immutablePaymentColumns], ",") != "id,merchant_id,imp_uid,merchant_uid" {
		panic("postgres: paymentColumns must begin with id, merchant_id, imp_uid, merchant_uid")
	}
	set := make([]string, 0, len(paymentColumnList))
	for i, c := range paymentColumnList[immutablePaymentColumns:] {
		set = append(set, fmt.Sprintf("%s = $%d", c, i+1))
	}
	return `UPDATE payments SET ` + strings.Join(set, ", ") + fmt.Sprintf(` WHERE id = $%d`, len(set)+1)
}()

// sortColumns is the whitelist of ORDER BY columns for FindPayment.
var sortColumns = map[string]string{"started": "started_at", "paid": "paid_at", "updated": "updated_at"}

// PaymentByIMPUID implements payport.Reader.
func (q queries) PaymentByIMPUID(ctx context.Context, merchantID int64, impUID string) (payport.Payment, error) {
	return q.payment(ctx, "payment by imp_uid", `SELECT `+paymentColumns+` FROM payments
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
	return q.payment(ctx, "find payment", `SELECT `+paymentColumns+` FROM payments
		WHERE merchant_id = $1 AND merchant_uid = $2 AND ($3::text = '' OR status = $3::text)
		ORDER BY `+col+` `+dir+`, id DESC LIMIT 1`, merchantID, merchantUID, string(status))
}

// payment runs a query for one payment and loads its cancel history.
func (q queries) payment(ctx context.Context, op, query string, args ...any) (payport.Payment, error) {
	var p payport.Payment
	if err := q.q.QueryRow(ctx, query, args...).Scan(paymentFields(&p)...); err != nil {
		return payport.Payment{}, mapErr(op, err)
	}
	rows, err := q.q.Query(ctx, `SELECT id, payment_id, pg_tid, amount, cancelled_at, reason, receipt_url
		FROM payment_cancels WHERE payment_id = $1 ORDER BY id`, p.ID)
	if err != nil {
		return payport.Payment{}, mapErr(op, err)
	}
	p.CancelHistory, err = collect(rows, op, func(r pgx.CollectableRow) (payport.CancelEntry, error) {
		var c payport.CancelEntry
		err := r.Scan(&c.ID, &c.PaymentID, &c.PGTID, &c.Amount, &c.CancelledAt, &c.Reason, &c.ReceiptURL)
		return c, err
	})
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
	if err := t.q.QueryRow(ctx, paymentInsert, paymentValues(p)...).Scan(&p.ID); err != nil {
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
	return t.payment(ctx, "lock payment", `SELECT `+paymentColumns+` FROM payments
		WHERE merchant_id = $1 AND imp_uid = $2 FOR NO KEY UPDATE`, merchantID, impUID)
}

// UpdatePayment implements payport.Tx. The row is identified by p.ID; the
// CHECK constraint on cancel_amount refuses a cancel_amount above amount
// (an internal error: the service checks the cancellable amount first).
func (t *tx) UpdatePayment(ctx context.Context, p payport.Payment) error {
	args := append(paymentValues(&p)[immutablePaymentColumns-1:], p.ID)
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
