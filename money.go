package payport

import (
	"strconv"
	"strings"
)

// Currency is an ISO 4217 code such as KRW or USD.
type Currency string

// exponents lists the currencies payport accepts and the number of decimals
// of their minor unit. Amounts are stored as integers in that minor unit.
var exponents = map[Currency]int{
	"KRW": 0, "JPY": 0, "VND": 0,
	"USD": 2, "EUR": 2, "GBP": 2, "CNY": 2, "HKD": 2, "SGD": 2, "AUD": 2, "CAD": 2, "TWD": 2, "THB": 2, "PHP": 2, "MYR": 2, "IDR": 2,
}

// DefaultCurrency is the currency of a request that names none.
const DefaultCurrency Currency = "KRW"

// Exponent returns the number of decimals of c's minor unit and whether c is known.
func (c Currency) Exponent() (int, bool) {
	e, ok := exponents[c]
	return e, ok
}

// ParseCurrency validates a currency code; "" yields DefaultCurrency.
func ParseCurrency(s string) (Currency, bool) {
	if s == "" {
		return DefaultCurrency, true
	}
	c := Currency(strings.ToUpper(s))
	_, ok := exponents[c]
	return c, ok
}

// ParseAmount converts a decimal string ("1000", "10.5") into minor units of
// c, exactly. It fails when the text is not a plain decimal number, is
// negative, has more decimals than c allows, or overflows. Trailing zero
// decimals are allowed ("1000.0" is 1000 KRW).
func ParseAmount(s string, c Currency) (int64, bool) {
	exp, ok := c.Exponent()
	if !ok || s == "" {
		return 0, false
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	if intPart == "" || (hasDot && frac == "") || !allDigits(intPart) || !allDigits(frac) {
		return 0, false
	}
	frac = strings.TrimRight(frac, "0")
	if len(frac) > exp {
		return 0, false
	}
	frac += strings.Repeat("0", exp-len(frac))
	if len(intPart)+len(frac) > 18 {
		return 0, false
	}
	v, err := strconv.ParseInt(intPart+frac, 10, 64)
	return v, err == nil
}

// FormatAmount renders minor units of c as the decimal text of a JSON number:
// 1000 KRW is "1000", 1050 USD cents is "10.5".
func FormatAmount(minor int64, c Currency) string {
	exp, _ := c.Exponent()
	neg := minor < 0
	if neg {
		minor = -minor
	}
	s := strconv.FormatInt(minor, 10)
	if exp > 0 {
		if len(s) <= exp {
			s = strings.Repeat("0", exp-len(s)+1) + s
		}
		i := len(s) - exp
		frac := strings.TrimRight(s[i:], "0")
		s = s[:i]
		if frac != "" {
			s += "." + frac
		}
	}
	if neg {
		s = "-" + s
	}
	return s
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
