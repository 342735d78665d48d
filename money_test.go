package payport_test

import (
	"testing"

	"github.com/payport/payport"
)

func TestParseAmount(t *testing.T) {
	cases := []struct {
		in   string
		cur  payport.Currency
		want int64
		ok   bool
	}{
		{"1000", "KRW", 1000, true},
		{"1000.0", "KRW", 1000, true},
		{"1000.5", "KRW", 0, false},
		{"10.5", "USD", 1050, true},
		{"10.55", "USD", 1055, true},
		{"10.555", "USD", 0, false},
		{"0.01", "USD", 1, true},
		{"0", "KRW", 0, true},
		{"-5", "KRW", 0, false},
		{"1e3", "KRW", 0, false},
		{"", "KRW", 0, false},
		{".5", "USD", 0, false},
		{"5.", "USD", 0, false},
		{"1000", "XYZ", 0, false},
		{"999999999999999999", "KRW", 999999999999999999, true},
		{"9999999999999999999", "KRW", 0, false},
		{"99999999999999999", "USD", 0, false},
	}
	for _, c := range cases {
		got, ok := payport.ParseAmount(c.in, c.cur)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseAmount(%q, %s) = %d, %v; want %d, %v", c.in, c.cur, got, ok, c.want, c.ok)
		}
	}
}

func TestFormatAmount(t *testing.T) {
	cases := []struct {
		minor int64
		cur   payport.Currency
		want  string
	}{
		{1000, "KRW", "1000"},
		{0, "KRW", "0"},
		{1050, "USD", "10.5"},
		{1055, "USD", "10.55"},
		{1000, "USD", "10"},
		{5, "USD", "0.05"},
		{-1050, "EUR", "-10.5"},
	}
	for _, c := range cases {
		if got := payport.FormatAmount(c.minor, c.cur); got != c.want {
			t.Errorf("FormatAmount(%d, %s) = %q, want %q", c.minor, c.cur, got, c.want)
		}
	}
}

func TestAmount_RoundTrip(t *testing.T) {
	for _, cur := range []payport.Currency{"KRW", "USD", "JPY", "EUR"} {
		for _, v := range []int64{0, 1, 9, 10, 99, 100, 101, 123456789, 1 << 50} {
			s := payport.FormatAmount(v, cur)
			if got, ok := payport.ParseAmount(s, cur); !ok || got != v {
				t.Errorf("%s %d → %q → %d, %v", cur, v, s, got, ok)
			}
		}
	}
}

func TestParseCurrencyAndSort(t *testing.T) {
	if c, ok := payport.ParseCurrency(""); !ok || c != "KRW" {
		t.Fatalf("default currency = %s, %v", c, ok)
	}
	if c, ok := payport.ParseCurrency("usd"); !ok || c != "USD" {
		t.Fatalf("usd = %s, %v", c, ok)
	}
	if s, ok := payport.ParseSort(""); !ok || s != payport.DefaultSort {
		t.Fatalf("default sort = %v", s)
	}
	if s, ok := payport.ParseSort("-paid"); !ok || s.Field != "paid" || !s.Descending {
		t.Fatalf("-paid = %v", s)
	}
	if _, ok := payport.ParseSort("-name"); ok {
		t.Fatalf("-name accepted")
	}
}
