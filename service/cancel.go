package service

import (
	"context"
	"fmt"
	"time"

	"github.com/payport/payport"
)

// Refusals of POST /payments/cancel (decisions §3.3).
const (
	MsgCancelNoUID        = "imp_uid 또는 merchant_uid 중 하나를 지정해주셔야합니다."
	MsgCancelNotFound     = "취소할 결제건이 존재하지 않습니다."
	MsgAlreadyCancelled   = "이미 전액취소된 주문입니다."
	MsgNotPaid            = "결제완료 상태가 아닌 결제건은 취소할 수 없습니다."
	MsgChecksumMismatch   = "checksum 불일치: 취소가능금액은 %s입니다."
	MsgCancelOverAmount   = "취소요청금액이 취소가능금액(%s)을 초과합니다."
	MsgVBankRefundFields  = "가상계좌 환불에는 refund_holder, refund_bank, refund_account가 필요합니다."
	MsgPhoneCancelMonthly = "휴대폰 소액결제는 결제한 달에만 취소할 수 있습니다."
)

// CancelInput is the body of POST /payments/cancel (spec 4.4).
type CancelInput struct {
	IMPUID        string
	MerchantUID   string
	Amount        string // decimal text; "" or 0 refunds everything cancellable
	Checksum      string // decimal text; "" skips the check
	Reason        string
	RefundHolder  string
	RefundBank    string
	RefundAccount string
	EnableWebhook bool
}

func (in CancelInput) validate() error {
	for _, l := range []struct {
		field, value string
		max          int
	}{
		{"imp_uid", in.IMPUID, 40}, {"merchant_uid", in.MerchantUID, 40}, {"reason", in.Reason, 200},
		{"refund_holder", in.RefundHolder, 16}, {"refund_bank", in.RefundBank, 8}, {"refund_account", in.RefundAccount, 32},
	} {
		if err := maxLen(l.field, l.value, l.max); err != nil {
			return err
		}
	}
	if in.RefundBank != "" {
		if _, ok := payport.Banks[in.RefundBank]; !ok {
			return payport.Invalid("refund_bank", fmt.Sprintf("unknown bank code %q", in.RefundBank))
		}
	}
	return nil
}

// Cancel implements POST /payments/cancel: a full or partial refund of a
// paid payment. The payment is locked for the whole check-and-refund, so
// concurrent cancels never refund more than the amount and two carrying
// the same checksum cannot both succeed. A refusal changes nothing.
func (s *Service) Cancel(ctx context.Context, m payport.Merchant, in CancelInput) (payport.Payment, error) {
	if err := in.validate(); err != nil {
		return payport.Payment{}, err
	}
	if in.IMPUID == "" && in.MerchantUID == "" {
		return payport.Payment{}, payport.Errorf(payport.KindRefused, "%s", MsgCancelNoUID)
	}
	settings, err := s.store.PGSettings(ctx, m.ID)
	if err != nil {
		return payport.Payment{}, fmt.Errorf("cancel: %w", err)
	}
	var p payport.Payment
	err = s.store.Update(ctx, func(tx payport.Tx) error {
		if p, err = lockCancelTarget(ctx, tx, m, in); err != nil {
			return err
		}
		now := s.now(m)
		amount, err := checkCancel(p, in, now)
		if err != nil {
			return err
		}
		refund, err := s.gateway.Refund(ctx, payport.RefundRequest{PG: settingOf(settings, p.PGProvider, p.PGID), Payment: p, Amount: amount, Now: now})
		if err != nil {
			return err
		}
		entry := payport.CancelEntry{PaymentID: p.ID, PGTID: refund.PGTID, Amount: amount, CancelledAt: now, Reason: in.Reason, ReceiptURL: s.receiptURL()}
		if err := tx.InsertCancel(ctx, &entry); err != nil {
			return err
		}
		p.CancelHistory = append(p.CancelHistory, entry)
		p.CancelAmount += amount
		p.UpdatedAt = now
		if p.Cancellable() == 0 {
			p.Status, p.CancelledAt, p.CancelReason = payport.StatusCancelled, now, in.Reason
		}
		if err := tx.UpdatePayment(ctx, p); err != nil {
			return err
		}
		if p.Status == payport.StatusCancelled && p.CustomerUIDUsage == payport.UsageScheduled {
			if err := tx.SetSchedulePaymentStatus(ctx, m.ID, p.IMPUID, payport.StatusCancelled); err != nil {
				return err
			}
		}
		if err := s.recordBalanceAfterCancel(ctx, tx, p, now); err != nil {
			return err
		}
		if !in.EnableWebhook {
			return nil
		}
		return s.queueWebhook(ctx, tx, m, p, string(payport.StatusCancelled), entry.PGTID, now)
	})
	if err != nil {
		return payport.Payment{}, fmt.Errorf("cancel: %w", err)
	}
	s.observe.Refunded(p.Currency, p.CancelHistory[len(p.CancelHistory)-1].Amount)
	if p.Status == payport.StatusCancelled {
		s.observe.PaymentChanged(p.Status)
	}
	return p, nil
}

// lockCancelTarget finds and locks the payment a cancel names: by imp_uid
// when given (an unknown one fails whatever merchant_uid holds), else the
// newest paid payment of merchant_uid, else its newest payment of any
// status (so the status refusal explains why it cannot be cancelled).
func lockCancelTarget(ctx context.Context, tx payport.Tx, m payport.Merchant, in CancelInput) (payport.Payment, error) {
	impUID := in.IMPUID
	if impUID == "" {
		p, err := tx.FindPayment(ctx, m.ID, in.MerchantUID, payport.StatusPaid, payport.DefaultSort)
		if payport.IsNotFound(err) {
			p, err = tx.FindPayment(ctx, m.ID, in.MerchantUID, "", payport.DefaultSort)
		}
		if payport.IsNotFound(err) {
			return p, payport.Errorf(payport.KindRefused, "%s", MsgCancelNotFound)
		} else if err != nil {
			return p, err
		}
		impUID = p.IMPUID
	}
	p, err := tx.LockPayment(ctx, m.ID, impUID)
	if payport.IsNotFound(err) {
		return p, payport.Errorf(payport.KindRefused, "%s", MsgCancelNotFound)
	}
	return p, err
}

// checkCancel applies the refund rules to a locked payment and returns the
// amount to refund.
func checkCancel(p payport.Payment, in CancelInput, now int64) (int64, error) {
	refuse := func(format string, args ...any) (int64, error) {
		return 0, payport.Errorf(payport.KindRefused, format, args...)
	}
	switch p.Status {
	case payport.StatusCancelled:
		return refuse("%s", MsgAlreadyCancelled)
	case payport.StatusPaid:
	default:
		return refuse("%s", MsgNotPaid)
	}
	cancellable := p.Cancellable()
	if cancellable == 0 {
		return refuse("%s", MsgAlreadyCancelled)
	}
	amount, err := parseNonNegative("amount", in.Amount, p.Currency)
	if err != nil {
		return 0, err
	}
	if in.Checksum != "" {
		sum, err := parseNonNegative("checksum", in.Checksum, p.Currency)
		if err != nil {
			return 0, err
		}
		if sum != cancellable {
			return refuse(MsgChecksumMismatch, payport.FormatAmount(cancellable, p.Currency))
		}
	}
	if amount == 0 {
		amount = cancellable
	}
	if amount > cancellable {
		return refuse(MsgCancelOverAmount, payport.FormatAmount(cancellable, p.Currency))
	}
	if p.PayMethod == "vbank" && (in.RefundHolder == "" || in.RefundBank == "" || in.RefundAccount == "") {
		return refuse("%s", MsgVBankRefundFields)
	}
	if p.PayMethod == "phone" && !sameMonthKST(p.PaidAt, now) {
		return refuse("%s", MsgPhoneCancelMonthly)
	}
	return amount, nil
}

// sameMonthKST reports whether two instants fall in one calendar month in
// Korea Standard Time.
func sameMonthKST(a, b int64) bool {
	ta, tb := time.Unix(a, 0).In(payport.KST), time.Unix(b, 0).In(payport.KST)
	return ta.Year() == tb.Year() && ta.Month() == tb.Month()
}

// recordBalanceAfterCancel adds the balance entry of a refund of a payco
// payment: the previous entry less the amount now refunded.
func (s *Service) recordBalanceAfterCancel(ctx context.Context, tx payport.Tx, p payport.Payment, now int64) error {
	if p.PGProvider != "payco" {
		return nil
	}
	entries, err := tx.BalanceHistory(ctx, p.ID)
	if err != nil {
		return err
	}
	e := &payport.BalanceEntry{Primary: payport.BalancePart{Amount: p.Amount}}
	refunded := p.CancelAmount
	if n := len(entries); n > 0 {
		e = &entries[n-1]
		refunded = p.CancelHistory[len(p.CancelHistory)-1].Amount
	}
	e = afterCancel(e, refunded)
	e.ID, e.PaymentID, e.CreatedAt = 0, p.ID, now
	return tx.InsertBalance(ctx, e)
}
