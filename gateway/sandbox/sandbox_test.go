package sandbox

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payport/payport"
)

// now is 2026-11-22 21:30:00 in Asia/Seoul.
var now = time.Date(2026, 11, 22, 21, 30, 0, 0, seoul).Unix()

var pg = payport.PGSetting{Provider: "nice", PGID: "nictest04m", NonAuth: true, VBank: true}

var (
	pgtidRE    = regexp.MustCompile(`^nictest04m261122213000\d{6}$`)
	applyNumRE = regexp.MustCompile(`^\d{8}$`)
	tokenRE    = regexp.MustCompile(`^sbx_[a-z]{2}_[0-9a-f]{32}$`)
)

func card(number string) payport.Card {
	return payport.Card{Number: number, Expiry: "2028-12", Birth: "900101", PWD2Digit: "00"}
}

func chargeReq(amount int64) payport.ChargeRequest {
	return payport.ChargeRequest{PG: pg, Amount: amount, Currency: "KRW", Now: now}
}

// wantErr fails t unless err has the kind and public message.
func wantErr(t *testing.T, err error, kind payport.ErrorKind, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want kind %d %q", kind, msg)
	}
	if got := payport.KindOf(err); got != kind {
		t.Errorf("KindOf(%v) = %d, want %d", err, got, kind)
	}
	if got := payport.MessageOf(err); got != msg {
		t.Errorf("MessageOf(%v) = %q, want %q", err, got, msg)
	}
}

var testCardCases = []struct {
	number    string
	info      payport.CardInfo
	reason    string // the fail reason of a charge; "" approves
	keyReason string // the refusal of registration; "" registers
}{
	{CardShinhan, payport.CardInfo{Code: "366", Name: "신한카드", Number: "424242******4242", Type: "0"}, "", ""},
	{CardKB, payport.CardInfo{Code: "381", Name: "KB국민카드", Number: "555555******4444", Type: "0"}, "", ""},
	{CardNHDebit, payport.CardInfo{Code: "371", Name: "NH농협카드", Number: "400005******5556", Type: "1"}, "", ""},
	{CardRejected, payport.CardInfo{Code: "361", Name: "BC카드", Number: "400000******0002", Type: "0"},
		"[카드사 거절] 승인이 거절되었습니다.", "[카드사 거절] 승인이 거절되었습니다."},
	{CardNoFunds, payport.CardInfo{Code: "361", Name: "BC카드", Number: "400000******9995", Type: "0"},
		"[카드사 거절] 잔액이 부족합니다.", "[카드사 거절] 잔액이 부족합니다."},
	{CardOverLimit, payport.CardInfo{Code: "361", Name: "BC카드", Number: "400000******0341", Type: "0"},
		"[카드사 거절] 한도가 초과되었습니다.", ""},
	{"4111-1111-1111-1111", payport.CardInfo{Code: "361", Name: "BC카드", Number: "411111******1111", Type: "0"}, "", ""},
	{"3566-0020-2036-0505", payport.CardInfo{Code: "361", Name: "BC카드", Number: "356600******0505", Type: "0"}, "", ""},
}

func TestChargeCardTestCards(t *testing.T) {
	t.Parallel()
	g := New()
	for _, tc := range testCardCases {
		t.Run(tc.number, func(t *testing.T) {
			t.Parallel()
			ch, err := g.ChargeCard(context.Background(), card(tc.number), chargeReq(1000))
			if err != nil {
				t.Fatalf("ChargeCard: %v", err)
			}
			if ch.Approved != (tc.reason == "") || ch.FailReason != tc.reason {
				t.Errorf("Approved %v FailReason %q, want reason %q", ch.Approved, ch.FailReason, tc.reason)
			}
			if ch.Card != tc.info {
				t.Errorf("Card = %+v, want %+v", ch.Card, tc.info)
			}
			if !pgtidRE.MatchString(ch.PGTID) {
				t.Errorf("PGTID = %q, want %v", ch.PGTID, pgtidRE)
			}
			if tc.reason != "" {
				if ch.ApplyNum != "" || ch.Key != (payport.BillingKey{}) {
					t.Errorf("declined charge has ApplyNum %q Key %+v", ch.ApplyNum, ch.Key)
				}
				return
			}
			if !applyNumRE.MatchString(ch.ApplyNum) {
				t.Errorf("ApplyNum = %q, want 8 digits", ch.ApplyNum)
			}
			if !tokenRE.MatchString(ch.Key.Token) || ch.Key.Card != tc.info {
				t.Errorf("Key = %+v, want a token and card %+v", ch.Key, tc.info)
			}
			again, err := g.ChargeKey(context.Background(), ch.Key, chargeReq(500))
			if err != nil || !again.Approved {
				t.Errorf("ChargeKey with the charge's key = %+v, %v; want approved", again, err)
			}
		})
	}
}

func TestBillingKeyTestCards(t *testing.T) {
	t.Parallel()
	g := New()
	for _, tc := range testCardCases {
		t.Run(tc.number, func(t *testing.T) {
			t.Parallel()
			key, err := g.IssueBillingKey(context.Background(), pg, card(tc.number), now)
			if tc.keyReason != "" {
				wantErr(t, err, payport.KindDeclined, tc.keyReason)
				return
			}
			if err != nil {
				t.Fatalf("IssueBillingKey: %v", err)
			}
			if !tokenRE.MatchString(key.Token) || key.Card != tc.info {
				t.Errorf("key = %+v, want a token and card %+v", key, tc.info)
			}
			ch, err := g.ChargeKey(context.Background(), key, chargeReq(1000))
			if err != nil {
				t.Fatalf("ChargeKey: %v", err)
			}
			if ch.Approved != (tc.reason == "") || ch.FailReason != tc.reason || ch.Card != tc.info {
				t.Errorf("ChargeKey = %+v, want reason %q card %+v", ch, tc.reason, tc.info)
			}
			if !pgtidRE.MatchString(ch.PGTID) {
				t.Errorf("PGTID = %q, want %v", ch.PGTID, pgtidRE)
			}
			if ch.Approved != applyNumRE.MatchString(ch.ApplyNum) {
				t.Errorf("ApplyNum = %q with Approved %v", ch.ApplyNum, ch.Approved)
			}
			if ch.Key != (payport.BillingKey{}) {
				t.Errorf("ChargeKey returned Key %+v, want zero", ch.Key)
			}
		})
	}
}

func TestTokenHidesCardNumber(t *testing.T) {
	t.Parallel()
	g := New()
	for _, number := range []string{CardShinhan, CardKB, CardNHDebit, CardOverLimit, "4111-1111-1111-1111"} {
		key, err := g.IssueBillingKey(context.Background(), pg, card(number), now)
		if err != nil {
			t.Fatalf("IssueBillingKey(%s): %v", number, err)
		}
		digits := strings.ReplaceAll(number, "-", "")
		if strings.Contains(key.Token, digits) || strings.Contains(key.Token, number) ||
			strings.Contains(key.Token, digits[:6]) || strings.Contains(key.Token, digits[6:12]) {
			t.Errorf("token %q reveals card %s", key.Token, number)
		}
	}
}

func TestTokensAreUnique(t *testing.T) {
	t.Parallel()
	g := New()
	const n = 64
	tokens := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			key, err := g.IssueBillingKey(context.Background(), pg, card(CardShinhan), now)
			if err != nil {
				t.Error(err)
			}
			tokens[i] = key.Token
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, tok := range tokens {
		if seen[tok] {
			t.Fatalf("token %q issued twice", tok)
		}
		seen[tok] = true
	}
}

func TestChargeKeyUnknownToken(t *testing.T) {
	t.Parallel()
	g := New()
	hex32 := strings.Repeat("ab", 16)
	for _, token := range []string{
		"",
		"sbx_",
		"sbx_ok",
		"sbx_ok_",
		"sbx_ok_" + hex32[:30],
		"sbx_ok_" + hex32 + "00",
		"sbx_ok_" + strings.ToUpper(hex32),
		"sbx_ok_" + strings.Repeat("zz", 16),
		"sbx_xx_" + hex32,
		"SBX_ok_" + hex32,
		"billing_key_123",
	} {
		t.Run(token, func(t *testing.T) {
			t.Parallel()
			key := payport.BillingKey{Token: token, Card: payport.CardInfo{Number: "424242******4242"}}
			_, err := g.ChargeKey(context.Background(), key, chargeReq(1000))
			wantErr(t, err, payport.KindDeclined, "등록되지 않은 구매자입니다.")
		})
	}
}

func TestCardNumberValidation(t *testing.T) {
	t.Parallel()
	g := New()
	const msg = "카드정보 인증에 실패하였습니다. [유효하지않은 카드번호]"
	for _, tc := range []struct{ name, number string }{
		{"empty", ""},
		{"no dashes", "4242424242424242"},
		{"spaces", "4242 4242 4242 4242"},
		{"grouping 5-3", "42424-242-4242-4242"},
		{"short group", "4242-4242-4242-424"},
		{"long group", "4242-4242-4242-42420"},
		{"five groups", "4242-4242-4242-4242-4242"},
		{"letter", "4242-4242-4242-424a"},
		{"leading space", " 4242-4242-4242-4242"},
		{"trailing newline", "4242-4242-4242-4242\n"},
		{"non-ASCII digits", "٤٢٤٢-٤٢٤٢-٤٢٤٢-٤٢٤٢"},
		{"Luhn", "4242-4242-4242-4241"},
		{"Luhn 2", "4000-0000-0000-0001"},
		{"bad expiry too", "4242-4242-4242-4241"}, // the number is checked first
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := card(tc.number)
			if tc.name == "bad expiry too" {
				c.Expiry = "bad"
			}
			_, err := g.ChargeCard(context.Background(), c, chargeReq(1000))
			wantErr(t, err, payport.KindDeclined, msg)
			_, err = g.IssueBillingKey(context.Background(), pg, c, now)
			wantErr(t, err, payport.KindDeclined, msg)
		})
	}
}

func TestExpiryValidation(t *testing.T) {
	t.Parallel()
	g := New()
	const msg = "카드정보 인증에 실패하였습니다. [유효기간 오류]"
	endOfMonth := time.Date(2026, 11, 30, 23, 59, 59, 0, seoul).Unix()
	nextMonth := time.Date(2026, 12, 1, 0, 0, 0, 0, seoul).Unix() // still 30 Nov in UTC
	for _, tc := range []struct {
		name   string
		expiry string
		now    int64
		ok     bool
	}{
		{"current month", "2026-11", now, true},
		{"next month", "2026-12", now, true},
		{"next year", "2027-01", now, true},
		{"last day of month in Seoul", "2026-11", endOfMonth, true},
		{"first day of next month in Seoul", "2026-11", nextMonth, false},
		{"last month", "2026-10", now, false},
		{"last year", "2025-12", now, false},
		{"month 13", "2027-13", now, false},
		{"month 00", "2027-00", now, false},
		{"empty", "", now, false},
		{"YY-MM", "27-01", now, false},
		{"MM/YY", "01/27", now, false},
		{"YYYYMM", "202701", now, false},
		{"one-digit month", "2027-1", now, false},
		{"slash", "2027/01", now, false},
		{"trailing day", "2027-01-01", now, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := card(CardShinhan)
			c.Expiry = tc.expiry
			req := chargeReq(1000)
			req.Now = tc.now
			ch, err := g.ChargeCard(context.Background(), c, req)
			_, keyErr := g.IssueBillingKey(context.Background(), pg, c, tc.now)
			if tc.ok {
				if err != nil || !ch.Approved || keyErr != nil {
					t.Fatalf("ChargeCard = %+v, %v; IssueBillingKey err %v; want approved", ch, err, keyErr)
				}
				return
			}
			wantErr(t, err, payport.KindDeclined, msg)
			wantErr(t, keyErr, payport.KindDeclined, msg)
		})
	}
}

func TestMaskNumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ digits, want string }{
		{"4242424242424242", "424242******4242"},
		{"5555555555554444", "555555******4444"},
		{"378282246310005", "378282*****0005"},
	} {
		if got := maskNumber(tc.digits); got != tc.want {
			t.Errorf("maskNumber(%q) = %q, want %q", tc.digits, got, tc.want)
		}
	}
}

func TestPGTIDUsesSeoulTime(t *testing.T) {
	t.Parallel()
	g := New()
	req := chargeReq(1000)
	req.PG = payport.PGSetting{Provider: "kcp", PGID: "T0000"}
	req.Now = time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC).Unix() // 2026-11-23 00:00 in Seoul
	ch, err := g.ChargeCard(context.Background(), card(CardShinhan), req)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^T0000261123000000\d{6}$`).MatchString(ch.PGTID) {
		t.Errorf("PGTID = %q, want T0000261123000000 and 6 digits", ch.PGTID)
	}
}

func TestChargeAmountMustBePositive(t *testing.T) {
	t.Parallel()
	g := New()
	key, err := g.IssueBillingKey(context.Background(), pg, card(CardShinhan), now)
	if err != nil {
		t.Fatal(err)
	}
	for _, amount := range []int64{0, -1} {
		_, err := g.ChargeCard(context.Background(), card(CardShinhan), chargeReq(amount))
		if err == nil || payport.KindOf(err) != payport.KindInternal || payport.MessageOf(err) != "" {
			t.Errorf("ChargeCard amount %d: err = %v, want an internal error", amount, err)
		}
		_, err = g.ChargeKey(context.Background(), key, chargeReq(amount))
		if err == nil || payport.KindOf(err) != payport.KindInternal || payport.MessageOf(err) != "" {
			t.Errorf("ChargeKey amount %d: err = %v, want an internal error", amount, err)
		}
	}
}

func TestRefundBounds(t *testing.T) {
	t.Parallel()
	g := New()
	payment := payport.Payment{Amount: 1000, CancelAmount: 300, PGID: "nictest04m"}
	for _, tc := range []struct {
		amount int64
		ok     bool
	}{
		{1, true}, {700, true}, {701, false}, {0, false}, {-1, false}, {1000, false},
	} {
		req := payport.RefundRequest{PG: pg, Payment: payment, Amount: tc.amount, Now: now}
		r, err := g.Refund(context.Background(), req)
		if !tc.ok {
			if err == nil || payport.KindOf(err) != payport.KindInternal {
				t.Errorf("Refund %d: err = %v, want an internal error", tc.amount, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Refund %d: %v", tc.amount, err)
		} else if !pgtidRE.MatchString(r.PGTID) {
			t.Errorf("Refund %d: PGTID = %q, want %v", tc.amount, r.PGTID, pgtidRE)
		}
	}
	a, _ := g.Refund(context.Background(), payport.RefundRequest{PG: pg, Payment: payment, Amount: 100, Now: now})
	b, _ := g.Refund(context.Background(), payport.RefundRequest{PG: pg, Payment: payment, Amount: 100, Now: now})
	if a.PGTID == b.PGTID {
		t.Errorf("two refunds share PGTID %q", a.PGTID)
	}
}

func TestIssueVBank(t *testing.T) {
	t.Parallel()
	g := New()
	numberRE := regexp.MustCompile(`^\d{14}$`)
	for code, name := range payport.Banks {
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			req := payport.VBankRequest{PG: pg, BankCode: code, Holder: "홍길동", Amount: 1000, Currency: "KRW", Due: now + 86400, Now: now}
			v, err := g.IssueVBank(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if v.BankCode != code || v.BankName != name || v.Holder != "홍길동" {
				t.Errorf("VBank = %+v, want bank %s %s holder 홍길동", v, code, name)
			}
			if !numberRE.MatchString(v.Number) {
				t.Errorf("Number = %q, want 14 digits", v.Number)
			}
			if !pgtidRE.MatchString(v.PGTID) {
				t.Errorf("PGTID = %q, want %v", v.PGTID, pgtidRE)
			}
		})
	}
}

func TestIssueVBankUnknownBank(t *testing.T) {
	t.Parallel()
	g := New()
	for _, code := range []string{"", "999", "04", "0004", "KB"} {
		req := payport.VBankRequest{PG: pg, BankCode: code, Holder: "홍길동", Amount: 1000, Now: now}
		_, err := g.IssueVBank(context.Background(), req)
		wantErr(t, err, payport.KindRefused, "지원하지 않는 은행코드입니다.")
	}
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	g := New()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err1 := g.ChargeCard(ctx, card(CardShinhan), chargeReq(1000))
	_, err2 := g.IssueBillingKey(ctx, pg, card(CardShinhan), now)
	_, err3 := g.IssueVBank(ctx, payport.VBankRequest{PG: pg, BankCode: "004", Now: now})
	for i, err := range []error{err1, err2, err3} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("call %d: err = %v, want context.Canceled", i, err)
		}
	}
}

func TestRandomDigits(t *testing.T) {
	t.Parallel()
	var counts [10]int
	s := randomDigits(10000)
	for i := 0; i < len(s); i++ {
		counts[s[i]-'0']++
	}
	for d, n := range counts {
		if n < 800 || n > 1200 { // about 9 standard deviations either side of 1000
			t.Errorf("digit %d appears %d times in 10000", d, n)
		}
	}
}
