package payport

// BalancePart is one means of a composite payment (spec 2.6): its amount
// and the tax-free share of it, in minor units.
type BalancePart struct {
	Amount  int64
	TaxFree int64
}

// BalanceEntry is the breakdown of a composite payment as it stood after a
// payment or a refund (decisions §3.6).
type BalanceEntry struct {
	ID          int64
	PaymentID   int64
	CreatedAt   int64
	Primary     BalancePart
	Secondary   BalancePart
	Discount    BalancePart
	CashReceipt BalancePart
}
