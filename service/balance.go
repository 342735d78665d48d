package service

import (
	"context"
	"fmt"

	"github.com/payport/payport"
)

// MsgNoBalance answers a balance lookup of a payment that is not composite.
const MsgNoBalance = "결제수단별 금액 상세정보를 제공하지 않는 결제건입니다."

// BalancePart is one part of a payment balance on the wire (spec 2.6), in
// minor units.
type BalancePart struct {
	TaxFree int64
	Supply  int64
	VAT     int64
	Service int64
}

// BalanceHistory is the breakdown after one payment or refund.
type BalanceHistory struct {
	CashReceipt, Primary, Secondary, Discount BalancePart
	Created                                   int64
}

// Balance is the answer of GET /payments/{imp_uid}/balance.
type Balance struct {
	Amount                                    int64
	Currency                                  payport.Currency
	CashReceipt, Primary, Secondary, Discount BalancePart
	Histories                                 []BalanceHistory
}

// split divides a part into tax-free, supply and VAT (decisions §3.6):
// vat = round(taxable / 11), supply = taxable - vat.
func split(p payport.BalancePart) BalancePart {
	taxable := p.Amount - p.TaxFree
	vat := (2*taxable + 11) / 22 // taxable/11 rounded half up, in integers
	return BalancePart{TaxFree: p.TaxFree, Supply: taxable - vat, VAT: vat}
}

func historyOf(e payport.BalanceEntry) BalanceHistory {
	return BalanceHistory{
		CashReceipt: split(e.CashReceipt), Primary: split(e.Primary), Secondary: split(e.Secondary),
		Discount: split(e.Discount), Created: e.CreatedAt,
	}
}

// PaymentBalance implements GET /payments/{imp_uid}/balance: the current
// breakdown of a payco payment and its history.
func (s *Service) PaymentBalance(ctx context.Context, m payport.Merchant, impUID string) (Balance, error) {
	p, err := s.Payment(ctx, m, impUID)
	if err != nil {
		return Balance{}, err
	}
	if p.PGProvider != "payco" {
		return Balance{}, payport.Errorf(payport.KindRefused, "%s", MsgNoBalance)
	}
	entries, err := s.store.BalanceHistory(ctx, p.ID)
	if err != nil {
		return Balance{}, fmt.Errorf("balance of %s: %w", impUID, err)
	}
	if len(entries) == 0 { // recorded before balances were kept: all primary
		entries = []payport.BalanceEntry{{CreatedAt: p.PaidAt, Primary: payport.BalancePart{Amount: p.Amount - p.CancelAmount}}}
	}
	// amount is the original total (OpenAPI: 최초 총 결제금액); the parts
	// carry the refunds.
	b := Balance{Amount: p.Amount, Currency: p.Currency, Histories: make([]BalanceHistory, len(entries))}
	for i, e := range entries {
		b.Histories[i] = historyOf(e)
	}
	last := b.Histories[len(b.Histories)-1]
	b.CashReceipt, b.Primary, b.Secondary, b.Discount = last.CashReceipt, last.Primary, last.Secondary, last.Discount
	return b, nil
}

// sandboxBalance builds the balance entries of a payco sandbox payment
// from the request's parts (decimal text): primary, secondary and
// discount must add up to the amount; cash_receipt may not exceed it.
// A payment recorded as refunded also gets the entry of its refund
// (decisions §3.6: every payment and refund adds an entry).
func sandboxBalance(parts map[string]string, p payport.Payment) ([]payport.BalanceEntry, error) {
	e := &payport.BalanceEntry{CreatedAt: max(p.PaidAt, p.StartedAt)}
	if parts == nil {
		e.Primary.Amount = p.Amount
		return withRefund(*e, p), nil
	}
	dst := map[string]*int64{"primary": &e.Primary.Amount, "secondary": &e.Secondary.Amount, "discount": &e.Discount.Amount, "cash_receipt": &e.CashReceipt.Amount}
	for k, v := range parts {
		ptr, ok := dst[k]
		if !ok {
			return nil, payport.Invalid("balance."+k, "unknown part; use primary, secondary, discount, cash_receipt")
		}
		n, err := parseNonNegative("balance."+k, v, p.Currency)
		if err != nil {
			return nil, err
		}
		*ptr = n
	}
	if sum := e.Primary.Amount + e.Secondary.Amount + e.Discount.Amount; sum != p.Amount {
		return nil, payport.Invalid("balance", fmt.Sprintf("primary + secondary + discount must equal amount %s, got %s",
			payport.FormatAmount(p.Amount, p.Currency), payport.FormatAmount(sum, p.Currency)))
	}
	if e.CashReceipt.Amount > p.Amount {
		return nil, payport.Invalid("balance.cash_receipt", "must not exceed amount")
	}
	return withRefund(*e, p), nil
}

// withRefund returns the payment's entry e and, when p has refunds, the
// entry after them, created when p was cancelled.
func withRefund(e payport.BalanceEntry, p payport.Payment) []payport.BalanceEntry {
	out := []payport.BalanceEntry{e}
	if p.CancelAmount > 0 {
		r := e
		afterCancel(&r, p.CancelAmount)
		r.CreatedAt = p.CancelledAt
		out = append(out, r)
	}
	return out
}

// afterCancel returns the entry with refunded subtracted from primary, then
// secondary, then discount (decisions §3.6); the cash-receipt part never
// exceeds what is left of primary. Tax-free shares shrink with their part.
func afterCancel(e *payport.BalanceEntry, refunded int64) *payport.BalanceEntry {
	for _, part := range []*payport.BalancePart{&e.Primary, &e.Secondary, &e.Discount} {
		take := min(refunded, part.Amount)
		part.Amount -= take
		part.TaxFree = min(part.TaxFree, part.Amount)
		refunded -= take
	}
	e.CashReceipt.Amount = min(e.CashReceipt.Amount, e.Primary.Amount)
	e.CashReceipt.TaxFree = min(e.CashReceipt.TaxFree, e.CashReceipt.Amount)
	return e
}
