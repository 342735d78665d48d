package service

import (
	"context"
	"fmt"
	"time"

	"github.com/payport/payport"
)

// SandboxPaymentInput is the body of POST /sandbox/payments (decisions §6):
// a payment recorded as if made in the checkout window. Empty strings and
// nil pointers are absent fields.
type SandboxPaymentInput struct {
	Order
	Status       string
	PayMethod    string
	PGProvider   string
	Channel      string
	UserAgent    string
	FailReason   string
	CancelReason string
	StartedAt    *int64
	PaidAt       *int64
	// Balance holds the composite parts of a payco payment as decimal
	// text, keyed primary, secondary, discount, cash_receipt; nil puts the
	// whole amount in primary.
	Balance map[string]string
}

// CreateSandboxPayment records a payment in any status for the merchant and
// returns it. Unlike a one-time payment it may reuse a merchant_uid.
func (s *Service) CreateSandboxPayment(ctx context.Context, m payport.Merchant, in SandboxPaymentInput) (payport.Payment, error) {
	settings, err := s.store.PGSettings(ctx, m.ID)
	if err != nil {
		return payport.Payment{}, fmt.Errorf("sandbox payment: %w", err)
	}
	p, err := s.buildSandboxPayment(m, in, settings)
	if err != nil {
		return payport.Payment{}, err
	}
	var bal []payport.BalanceEntry
	if p.PGProvider == "payco" {
		if bal, err = sandboxBalance(in.Balance, p); err != nil {
			return payport.Payment{}, err
		}
	} else if in.Balance != nil {
		return payport.Payment{}, payport.Invalid("balance", "only payco payments have a balance")
	}
	err = s.store.Update(ctx, func(tx payport.Tx) error {
		if err := tx.ClaimMerchantUID(ctx, m.ID, p.MerchantUID, false); err != nil {
			return err
		}
		if err := s.insertPayment(ctx, tx, &p); err != nil {
			return err
		}
		for i := range bal {
			bal[i].PaymentID = p.ID
			if err := tx.InsertBalance(ctx, &bal[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return payport.Payment{}, fmt.Errorf("sandbox payment: %w", err)
	}
	s.observe.PaymentChanged(p.Status)
	return p, nil
}

func (s *Service) buildSandboxPayment(m payport.Merchant, in SandboxPaymentInput, settings []payport.PGSetting) (payport.Payment, error) {
	cur, amount, err := in.validate()
	if err != nil {
		return payport.Payment{}, err
	}
	now := s.now(m)
	p := orderPayment(m, in.Order, cur, amount, now)
	p.PayMethod, p.Channel = orDefault(in.PayMethod, "card"), orDefault(in.Channel, payport.ChannelPC)
	p.Status, p.UserAgent = payport.Status(orDefault(in.Status, string(payport.StatusPaid))), in.UserAgent
	p.StartedAt = valueOr(in.StartedAt, now)
	p.PGProvider, p.PGID = sandboxPG(in.PGProvider, settings)
	p.PGTID = s.pgTID(p.PGID, now)
	if p.Status != payport.StatusReady && p.Status != payport.StatusFailed {
		p.PaidAt = valueOr(in.PaidAt, max(now, p.StartedAt))
		if p.PaidAt < p.StartedAt {
			return payport.Payment{}, payport.Invalid("paid_at", "must not be before started_at")
		}
		p.ReceiptURL = s.receiptURL()
	}
	fillMethodFields(&p)
	switch p.Status {
	case payport.StatusFailed:
		p.FailedAt, p.FailReason = now, orDefault(in.FailReason, "[sandbox] 결제에 실패하였습니다.")
	case payport.StatusCancelled:
		p.CancelledAt, p.CancelReason, p.CancelAmount = now, in.CancelReason, p.Amount
		p.CancelHistory = []payport.CancelEntry{{PGTID: p.PGTID, Amount: p.Amount, CancelledAt: now, Reason: in.CancelReason, ReceiptURL: s.receiptURL()}}
	}
	return p, nil
}

func (in *SandboxPaymentInput) validate() (payport.Currency, int64, error) {
	cur, amount, err := in.Order.validate()
	if err != nil {
		return "", 0, err
	}
	for _, l := range []struct {
		field, value string
		max          int
	}{{"user_agent", in.UserAgent, 512}, {"fail_reason", in.FailReason, 200}, {"cancel_reason", in.CancelReason, 200}} {
		if err := maxLen(l.field, l.value, l.max); err != nil {
			return "", 0, err
		}
	}
	if _, ok := payport.ParseStatus(orDefault(in.Status, "paid")); !ok {
		return "", 0, payport.Invalid("status", "must be one of ready, paid, failed, cancelled")
	}
	if !payport.PayMethods[orDefault(in.PayMethod, "card")] {
		return "", 0, payport.Invalid("pay_method", fmt.Sprintf("unknown pay_method %q", in.PayMethod))
	}
	if _, ok := payport.PGProviders[in.PGProvider]; in.PGProvider != "" && !ok {
		return "", 0, payport.Invalid("pg_provider", fmt.Sprintf("unknown pg_provider %q", in.PGProvider))
	}
	if c := orDefault(in.Channel, payport.ChannelPC); c != payport.ChannelPC && c != payport.ChannelMobile {
		return "", 0, payport.Invalid("channel", "must be pc or mobile")
	}
	for field, v := range map[string]*int64{"started_at": in.StartedAt, "paid_at": in.PaidAt} {
		if v != nil && *v <= 0 {
			return "", 0, payport.Invalid(field, "must be a positive UNIX timestamp")
		}
	}
	return cur, amount, nil
}

// sandboxPG resolves a sandbox payment's provider and pg_id: the named
// provider's first setting, or its test pg_id when the merchant has none;
// without a name, the merchant's first setting.
func sandboxPG(provider string, settings []payport.PGSetting) (string, string) {
	for _, set := range settings {
		if provider == "" || set.Provider == provider {
			return set.Provider, set.PGID
		}
	}
	if provider == "" {
		provider = payport.DefaultPGSettings[0].Provider
	}
	return provider, payport.PGProviders[provider].TestPGID
}

// fillMethodFields sets the means-specific fields a gateway would report.
func fillMethodFields(p *payport.Payment) {
	switch p.PayMethod {
	case "card":
		if p.Status != payport.StatusReady {
			p.CardCode, p.CardName, p.CardNumber, p.CardType = "366", "신한카드", "424242******4242", "0"
		}
		if p.PaidAt != 0 {
			p.ApplyNum = randomDigits(8)
		}
	case "trans":
		p.BankCode, p.BankName = "004", payport.Banks["004"]
	case "vbank":
		p.VBankCode, p.VBankName, p.VBankNum = "004", payport.Banks["004"], randomDigits(14)
		p.VBankHolder, p.VBankIssuedAt, p.VBankDate = "(주)페이포트", p.StartedAt, p.StartedAt+3*86400
	}
}

// insertPayment gives p a fresh imp_uid and inserts it, retrying the rare
// imp_uid collision.
func (s *Service) insertPayment(ctx context.Context, tx payport.Tx, p *payport.Payment) error {
	for attempt := 0; ; attempt++ {
		p.IMPUID = "imp_" + randomDigits(12)
		err := tx.InsertPayment(ctx, p)
		if !payport.IsConflict(err) || attempt == 3 {
			return err
		}
	}
}

func (s *Service) pgTID(pgID string, now int64) string {
	return pgID + time.Unix(now, 0).In(payport.KST).Format("060102150405") + randomDigits(6)
}

func (s *Service) receiptURL() string { return s.publicURL + "/receipts/" + randomID() }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func valueOr(p *int64, def int64) int64 {
	if p == nil {
		return def
	}
	return *p
}
