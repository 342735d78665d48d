package httpapi

import (
	"encoding/json"

	"github.com/payport/payport"
	"github.com/payport/payport/service"
)

// customerJSON is the wire form of a billing key (spec 2.5): every field
// present, strings without a value null.
type customerJSON struct {
	CustomerUID      string  `json:"customer_uid"`
	PGProvider       *string `json:"pg_provider"`
	PGID             *string `json:"pg_id"`
	CardName         *string `json:"card_name"`
	CardCode         *string `json:"card_code"`
	CardNumber       *string `json:"card_number"`
	CardType         *string `json:"card_type"`
	CustomerName     *string `json:"customer_name"`
	CustomerTel      *string `json:"customer_tel"`
	CustomerEmail    *string `json:"customer_email"`
	CustomerAddr     *string `json:"customer_addr"`
	CustomerPostcode *string `json:"customer_postcode"`
	Inserted         int64   `json:"inserted"`
	Updated          int64   `json:"updated"`
}

func toCustomerJSON(c payport.Customer) customerJSON {
	return customerJSON{
		CustomerUID: c.CustomerUID, PGProvider: null(c.PGProvider), PGID: null(c.PGID), CardName: null(c.CardName),
		CardCode: null(c.CardCode), CardNumber: null(c.CardNumber), CardType: null(c.CardType),
		CustomerName: null(c.CustomerName), CustomerTel: null(c.CustomerTel), CustomerEmail: null(c.CustomerEmail),
		CustomerAddr: null(c.CustomerAddr), CustomerPostcode: null(c.CustomerPostcode), Inserted: c.Inserted, Updated: c.Updated,
	}
}

// balancePartJSON is one part of a payment balance (spec 2.6).
type balancePartJSON struct {
	TaxFree json.Number `json:"tax_free"`
	Supply  json.Number `json:"supply"`
	VAT     json.Number `json:"vat"`
	Service json.Number `json:"service"`
}

type balanceHistoryJSON struct {
	CashReceipt balancePartJSON `json:"cash_receipt"`
	Primary     balancePartJSON `json:"primary"`
	Secondary   balancePartJSON `json:"secondary"`
	Discount    balancePartJSON `json:"discount"`
	Created     int64           `json:"created"`
}

type balanceJSON struct {
	Amount      json.Number          `json:"amount"`
	CashReceipt balancePartJSON      `json:"cash_receipt"`
	Primary     balancePartJSON      `json:"primary"`
	Secondary   balancePartJSON      `json:"secondary"`
	Discount    balancePartJSON      `json:"discount"`
	Histories   []balanceHistoryJSON `json:"histories"`
}

func toBalanceJSON(b service.Balance) balanceJSON {
	part := func(p service.BalancePart) balancePartJSON {
		return balancePartJSON{amount(p.TaxFree, b.Currency), amount(p.Supply, b.Currency), amount(p.VAT, b.Currency), amount(p.Service, b.Currency)}
	}
	out := balanceJSON{
		Amount: amount(b.Amount, b.Currency), CashReceipt: part(b.CashReceipt), Primary: part(b.Primary),
		Secondary: part(b.Secondary), Discount: part(b.Discount), Histories: make([]balanceHistoryJSON, len(b.Histories)),
	}
	for i, h := range b.Histories {
		out.Histories[i] = balanceHistoryJSON{part(h.CashReceipt), part(h.Primary), part(h.Secondary), part(h.Discount), h.Created}
	}
	return out
}
