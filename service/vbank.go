package service

import (
	"context"
	"crypto/hmac"
	"fmt"

	"github.com/payport/payport"
)

// Refusals of the virtual-account operations.
const (
	MsgVBankOrderPaid    = "이미 결제완료된 merchant_uid입니다."
	MsgDepositNotVBank   = "가상계좌 결제건이 아닙니다."
	MsgDepositNotReady   = "입금대기 상태가 아닌 가상계좌입니다."
	MsgDepositPastDue    = "입금기한이 지난 가상계좌입니다."
	vbankHolderMaxLength = 16
)

// VBankInput is the body (and pg_api_key query) of POST /vbanks (spec 4.8).
type VBankInput struct {
	Order
	VBankCode   string
	VBankDue    *int64
	VBankHolder string
	PG          string
	PGAPIKey    string
	VATAmount   *int64
}

func (in *VBankInput) validate(now int64) (payport.Currency, int64, error) {
	cur, amount, err := in.Order.validate()
	if err != nil {
		return "", 0, err
	}
	switch {
	case in.VBankCode == "":
		return "", 0, payport.Invalid("vbank_code", "required")
	case in.VBankDue == nil:
		return "", 0, payport.Invalid("vbank_due", "required")
	case *in.VBankDue <= now:
		return "", 0, payport.Invalid("vbank_due", fmt.Sprintf("must be in the future (now is %d)", now))
	case in.VBankHolder == "":
		return "", 0, payport.Invalid("vbank_holder", "required")
	case in.VATAmount != nil && (*in.VATAmount < 0 || *in.VATAmount > amount):
		return "", 0, payport.Invalid("vat_amount", "must be between 0 and amount")
	}
	if err := maxLen("vbank_holder", in.VBankHolder, vbankHolderMaxLength); err != nil {
		return "", 0, err
	}
	return cur, amount, maxLen("vbank_code", in.VBankCode, 8)
}

// IssueVBank implements POST /vbanks (decisions §3.5): a virtual account
// in status ready, with its `ready` webhook. An order number that already
// has a paid payment is refused.
func (s *Service) IssueVBank(ctx context.Context, m payport.Merchant, in VBankInput) (payport.Payment, error) {
	now := s.now(m)
	cur, amount, err := in.validate(now)
	if err != nil {
		return payport.Payment{}, err
	}
	settings, err := s.store.PGSettings(ctx, m.ID)
	if err != nil {
		return payport.Payment{}, fmt.Errorf("vbank: %w", err)
	}
	pg, err := resolvePG(settings, in.PG)
	if err != nil {
		return payport.Payment{}, err
	}
	if !pg.VBank {
		return payport.Payment{}, payport.Errorf(payport.KindRefused, "%s", MsgVBankNeedsPG)
	}
	if pg.APIKeyHash != nil && !hmac.Equal(pg.APIKeyHash, s.keys.HashSecret("pg_api_key", in.PGAPIKey)) {
		return payport.Payment{}, payport.Errorf(payport.KindDeclined, "%s", MsgPGAPIKeyWrong)
	}
	var p payport.Payment
	err = s.store.Update(ctx, func(tx payport.Tx) error {
		_, err := tx.FindPayment(ctx, m.ID, in.MerchantUID, payport.StatusPaid, payport.DefaultSort)
		if err == nil {
			return payport.Errorf(payport.KindRefused, "%s", MsgVBankOrderPaid)
		} else if !payport.IsNotFound(err) {
			return err
		}
		vb, err := s.gateway.IssueVBank(ctx, payport.VBankRequest{PG: pg, BankCode: in.VBankCode, Holder: in.VBankHolder, Amount: amount, Currency: cur, Due: *in.VBankDue, Now: now})
		if err != nil {
			return err
		}
		p = orderPayment(m, in.Order, cur, amount, now)
		p.PayMethod, p.Channel, p.PGProvider, p.PGID, p.PGTID, p.Status = "vbank", payport.ChannelAPI, pg.Provider, pg.PGID, vb.PGTID, payport.StatusReady
		p.VBankCode, p.VBankName, p.VBankNum, p.VBankHolder = vb.BankCode, vb.BankName, vb.Number, vb.Holder
		p.VBankIssuedAt, p.VBankDate = now, *in.VBankDue
		if err := tx.ClaimMerchantUID(ctx, m.ID, p.MerchantUID, false); err != nil {
			return err
		}
		if err := s.insertPayment(ctx, tx, &p); err != nil {
			return err
		}
		return s.queueWebhook(ctx, tx, m, p, string(payport.StatusReady), "", now)
	})
	if err != nil {
		return payport.Payment{}, fmt.Errorf("vbank: %w", err)
	}
	s.observe.PaymentChanged(p.Status)
	return p, nil
}

// Deposit implements POST /sandbox/vbanks/{imp_uid}/deposit: the full
// amount arrives in a ready virtual account before its deadline, which
// makes the payment paid and queues its `paid` webhook.
func (s *Service) Deposit(ctx context.Context, m payport.Merchant, impUID string) (payport.Payment, error) {
	var p payport.Payment
	err := s.store.Update(ctx, func(tx payport.Tx) error {
		var err error
		if p, err = tx.LockPayment(ctx, m.ID, impUID); payport.IsNotFound(err) {
			return paymentNotFound()
		} else if err != nil {
			return err
		}
		now := s.now(m)
		switch {
		case p.PayMethod != "vbank":
			return payport.Errorf(payport.KindRefused, "%s", MsgDepositNotVBank)
		case p.Status != payport.StatusReady:
			return payport.Errorf(payport.KindRefused, "%s", MsgDepositNotReady)
		case p.VBankDate != 0 && now >= p.VBankDate:
			return payport.Errorf(payport.KindRefused, "%s", MsgDepositPastDue)
		}
		p.Status, p.PaidAt, p.UpdatedAt, p.ReceiptURL = payport.StatusPaid, now, now, s.receiptURL()
		if err := tx.UpdatePayment(ctx, p); err != nil {
			return err
		}
		return s.queueWebhook(ctx, tx, m, p, string(payport.StatusPaid), "", now)
	})
	if err != nil {
		return payport.Payment{}, fmt.Errorf("deposit: %w", err)
	}
	s.observe.PaymentChanged(p.Status)
	return p, nil
}
