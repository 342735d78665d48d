package service

import (
	"fmt"
	"unicode/utf8"

	"github.com/payport/payport"
)

// Order holds the order fields every payment-creating operation shares.
// Empty strings are absent fields.
type Order struct {
	MerchantUID   string
	Amount        string // decimal text, exact
	Currency      string
	Name          string
	BuyerName     string
	BuyerEmail    string
	BuyerTel      string
	BuyerAddr     string
	BuyerPostcode string
	CustomData    string
	NoticeURL     string
}

// orderLimits are the field lengths of spec §8, applied to every operation
// that records an order, plus caps on the free-text fields the spec leaves open.
var orderLimits = []struct {
	field string
	max   int
	get   func(*Order) string
}{
	{"merchant_uid", 40, func(o *Order) string { return o.MerchantUID }},
	{"name", 40, func(o *Order) string { return o.Name }},
	{"buyer_name", 16, func(o *Order) string { return o.BuyerName }},
	{"buyer_email", 64, func(o *Order) string { return o.BuyerEmail }},
	{"buyer_tel", 16, func(o *Order) string { return o.BuyerTel }},
	{"buyer_addr", 128, func(o *Order) string { return o.BuyerAddr }},
	{"buyer_postcode", 8, func(o *Order) string { return o.BuyerPostcode }},
	{"custom_data", 8192, func(o *Order) string { return o.CustomData }},
	{"notice_url", 2048, func(o *Order) string { return o.NoticeURL }},
}

// validate checks the order's fields and returns its currency and amount
// in minor units.
func (o *Order) validate() (payport.Currency, int64, error) {
	if o.MerchantUID == "" {
		return "", 0, payport.Invalid("merchant_uid", "required")
	}
	for _, l := range orderLimits {
		if err := maxLen(l.field, l.get(o), l.max); err != nil {
			return "", 0, err
		}
	}
	if o.NoticeURL != "" {
		if err := validateHTTPURL(o.NoticeURL); err != nil {
			return "", 0, payport.Invalid("notice_url", err.Error())
		}
	}
	cur, ok := payport.ParseCurrency(o.Currency)
	if !ok {
		return "", 0, payport.Invalid("currency", fmt.Sprintf("unsupported currency code %q", o.Currency))
	}
	amount, err := parseAmount("amount", o.Amount, cur, true)
	return cur, amount, err
}

// orderPayment starts a payment record from a validated order.
func orderPayment(m payport.Merchant, o Order, cur payport.Currency, amount, now int64) payport.Payment {
	return payport.Payment{
		MerchantID: m.ID, MerchantUID: o.MerchantUID, Name: o.Name, Amount: amount, Currency: cur,
		BuyerName: o.BuyerName, BuyerEmail: o.BuyerEmail, BuyerTel: o.BuyerTel, BuyerAddr: o.BuyerAddr,
		BuyerPostcode: o.BuyerPostcode, CustomData: o.CustomData, NoticeURL: o.NoticeURL,
		StartedAt: now, UpdatedAt: now,
	}
}

// maxLen refuses a value longer than max characters.
func maxLen(field, value string, max int) error {
	if utf8.RuneCountInString(value) > max {
		return payport.Invalid(field, fmt.Sprintf("must be at most %d characters", max))
	}
	return nil
}

// parseAmount reads a positive amount in minor units of cur; "" is an
// error when required and 0 otherwise.
func parseAmount(field, text string, cur payport.Currency, required bool) (int64, error) {
	if text == "" {
		if required {
			return 0, payport.Invalid(field, "required")
		}
		return 0, nil
	}
	if v, ok := payport.ParseAmount(text, cur); ok && v > 0 {
		return v, nil
	}
	exp, _ := cur.Exponent()
	return 0, payport.Invalid(field, fmt.Sprintf("must be a positive number with at most %d decimals for %s", exp, cur))
}

// parseNonNegative reads an optional amount that may be 0.
func parseNonNegative(field, text string, cur payport.Currency) (int64, error) {
	if text == "" {
		return 0, nil
	}
	if v, ok := payport.ParseAmount(text, cur); ok {
		return v, nil
	}
	exp, _ := cur.Exponent()
	return 0, payport.Invalid(field, fmt.Sprintf("must be a number of at least 0 with at most %d decimals for %s", exp, cur))
}
