package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/payport/payport"
)

// Messages of refusals (decisions §3.5, §5.1).
const (
	msgUnknownKey  = "등록되지 않은 구매자입니다."
	msgUnknownBank = "지원하지 않는 은행코드입니다."
)

// Gateway is the sandbox payment gateway. It keeps no state; the zero value
// is ready to use and safe for concurrent use.
type Gateway struct{}

var _ payport.Gateway = (*Gateway)(nil)

// New returns a sandbox gateway.
func New() *Gateway { return &Gateway{} }

// IssueBillingKey validates card and registers it. The test cards the
// issuer declines are refused with their fail reason (KindDeclined).
func (g *Gateway) IssueBillingKey(ctx context.Context, _ payport.PGSetting, card payport.Card, now int64) (payport.BillingKey, error) {
	if err := ctx.Err(); err != nil {
		return payport.BillingKey{}, err
	}
	c, info, err := checkCard(card, now)
	if err != nil {
		return payport.BillingKey{}, err
	}
	if c.refuseKey {
		return payport.BillingKey{}, declined(failReasons[c.outcome])
	}
	return newKey(c.outcome, info), nil
}

// ChargeCard validates card and charges it once. An approved charge carries
// a billing key for the card, which the caller may keep.
func (g *Gateway) ChargeCard(ctx context.Context, card payport.Card, req payport.ChargeRequest) (payport.Charge, error) {
	if err := checkRequest(ctx, req.Amount); err != nil {
		return payport.Charge{}, err
	}
	c, info, err := checkCard(card, req.Now)
	if err != nil {
		return payport.Charge{}, err
	}
	ch := charge(c.outcome, info, req)
	if ch.Approved {
		ch.Key = newKey(c.outcome, info)
	}
	return ch, nil
}

// ChargeKey charges a billing key issued by a sandbox gateway. A token the
// sandbox did not make is KindDeclined 등록되지 않은 구매자입니다.
func (g *Gateway) ChargeKey(ctx context.Context, key payport.BillingKey, req payport.ChargeRequest) (payport.Charge, error) {
	if err := checkRequest(ctx, req.Amount); err != nil {
		return payport.Charge{}, err
	}
	o, ok := parseToken(key.Token)
	if !ok {
		return payport.Charge{}, declined(msgUnknownKey)
	}
	return charge(o, key.Card, req), nil
}

// Refund refunds an amount of a payment. The amount must be positive and at
// most what the payment still has to cancel.
func (g *Gateway) Refund(ctx context.Context, req payport.RefundRequest) (payport.Refund, error) {
	if err := ctx.Err(); err != nil {
		return payport.Refund{}, err
	}
	if left := req.Payment.Cancellable(); req.Amount <= 0 || req.Amount > left {
		return payport.Refund{}, fmt.Errorf("sandbox: refund amount %d outside 1..%d", req.Amount, left)
	}
	return payport.Refund{PGTID: newPGTID(req.PG, req.Now)}, nil
}

// IssueVBank issues a virtual account at a bank of payport.Banks; another
// bank code is KindRefused.
func (g *Gateway) IssueVBank(ctx context.Context, req payport.VBankRequest) (payport.VBank, error) {
	if err := ctx.Err(); err != nil {
		return payport.VBank{}, err
	}
	name, ok := payport.Banks[req.BankCode]
	if !ok {
		return payport.VBank{}, payport.Errorf(payport.KindRefused, "%s", msgUnknownBank)
	}
	return payport.VBank{
		BankCode: req.BankCode,
		BankName: name,
		Number:   randomDigits(14),
		Holder:   req.Holder,
		PGTID:    newPGTID(req.PG, req.Now),
	}, nil
}

// checkRequest fails when ctx is done or a charge's amount is not positive;
// callers validate amounts first, so the latter is a bug (KindInternal).
func checkRequest(ctx context.Context, amount int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if amount <= 0 {
		return fmt.Errorf("sandbox: charge amount %d is not positive", amount)
	}
	return nil
}

// charge is the answer to a charge with the given outcome.
func charge(o outcome, info payport.CardInfo, req payport.ChargeRequest) payport.Charge {
	ch := payport.Charge{PGTID: newPGTID(req.PG, req.Now), Card: info}
	if reason := failReasons[o]; reason != "" {
		ch.FailReason = reason
		return ch
	}
	ch.Approved = true
	ch.ApplyNum = randomDigits(8)
	return ch
}

// declined is a card error of the given public message.
func declined(msg string) *payport.Error {
	return &payport.Error{Kind: payport.KindDeclined, Message: msg}
}

// Billing-key tokens are tokenPrefix, the outcome, '_' and tokenRandBytes
// random bytes in hex: sbx_ok_5f0c… . They never carry the card number.
const (
	tokenPrefix    = "sbx_"
	tokenRandBytes = 16
)

// newKey returns a billing key whose charges have outcome o.
func newKey(o outcome, info payport.CardInfo) payport.BillingKey {
	return payport.BillingKey{Token: tokenPrefix + string(o) + "_" + randomHex(tokenRandBytes), Card: info}
}

// parseToken returns the outcome encoded in a token made by newKey.
func parseToken(token string) (outcome, bool) {
	rest, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok {
		return "", false
	}
	code, random, ok := strings.Cut(rest, "_")
	if !ok || len(random) != 2*tokenRandBytes || strings.ToLower(random) != random {
		return "", false
	}
	if _, err := hex.DecodeString(random); err != nil {
		return "", false
	}
	o := outcome(code)
	_, known := failReasons[o]
	return o, known
}

// newPGTID returns a PG transaction id: the setting's pg_id, now as
// YYMMDDhhmmss in Asia/Seoul, and 6 random digits.
func newPGTID(pg payport.PGSetting, now int64) string {
	return pg.PGID + time.Unix(now, 0).In(seoul).Format("060102150405") + randomDigits(6)
}

// randomHex returns n random bytes in lower-case hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails since Go 1.24: it crashes the program instead
	return hex.EncodeToString(b)
}

// randomDigits returns n uniformly random decimal digits.
func randomDigits(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n+8)
	for len(out) < n {
		rand.Read(buf)
		for _, b := range buf {
			if b < 250 && len(out) < n { // 250 = 25*10: no bias
				out = append(out, '0'+b%10)
			}
		}
	}
	return string(out)
}
