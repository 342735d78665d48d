package postgres

import (
	"context"

	"github.com/payport/payport"
	"github.com/payport/payport/internal/rowmap"
)

// BalanceHistory implements payport.Reader: oldest entry first, an empty
// slice when the payment has none.
func (q queries) BalanceHistory(ctx context.Context, paymentID int64) ([]payport.BalanceEntry, error) {
	rows, err := q.q.Query(ctx, `SELECT `+rowmap.BalanceColumns+`
		FROM payment_balances WHERE payment_id = $1 ORDER BY id`, paymentID)
	if err != nil {
		return nil, mapErr("balance history", err)
	}
	return collect(rows, "balance history", rowmap.BalanceFields)
}

// InsertBalance implements payport.Tx.
func (t *tx) InsertBalance(ctx context.Context, b *payport.BalanceEntry) error {
	err := t.q.QueryRow(ctx, `INSERT INTO payment_balances (payment_id, created_at,
		primary_amount, primary_tax_free, secondary_amount, secondary_tax_free,
		discount_amount, discount_tax_free, cash_receipt_amount, cash_receipt_tax_free)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
		b.PaymentID, b.CreatedAt, b.Primary.Amount, b.Primary.TaxFree, b.Secondary.Amount, b.Secondary.TaxFree,
		b.Discount.Amount, b.Discount.TaxFree, b.CashReceipt.Amount, b.CashReceipt.TaxFree).Scan(&b.ID)
	return mapErr("insert balance", err)
}
