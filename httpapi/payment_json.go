package httpapi

import (
	"encoding/json"

	"github.com/payport/payport"
)

// paymentJSON is the wire form of a payment record (spec 2.3, decisions
// §1.6): every field present, strings without a value null, timestamps
// integers with 0 for "not happened", amounts exact JSON numbers.
type paymentJSON struct {
	IMPUID            string       `json:"imp_uid"`
	MerchantUID       string       `json:"merchant_uid"`
	PayMethod         *string      `json:"pay_method"`
	Channel           *string      `json:"channel"`
	PGProvider        *string      `json:"pg_provider"`
	EmbPGProvider     *string      `json:"emb_pg_provider"`
	PGTID             *string      `json:"pg_tid"`
	PGID              *string      `json:"pg_id"`
	Escrow            bool         `json:"escrow"`
	ApplyNum          *string      `json:"apply_num"`
	BankCode          *string      `json:"bank_code"`
	BankName          *string      `json:"bank_name"`
	CardCode          *string      `json:"card_code"`
	CardName          *string      `json:"card_name"`
	CardQuota         int          `json:"card_quota"`
	CardNumber        *string      `json:"card_number"`
	CardType          *string      `json:"card_type"`
	VBankCode         *string      `json:"vbank_code"`
	VBankName         *string      `json:"vbank_name"`
	VBankNum          *string      `json:"vbank_num"`
	VBankHolder       *string      `json:"vbank_holder"`
	VBankDate         int64        `json:"vbank_date"`
	VBankIssuedAt     int64        `json:"vbank_issued_at"`
	Name              *string      `json:"name"`
	Amount            json.Number  `json:"amount"`
	CancelAmount      json.Number  `json:"cancel_amount"`
	Currency          string       `json:"currency"`
	BuyerName         *string      `json:"buyer_name"`
	BuyerEmail        *string      `json:"buyer_email"`
	BuyerTel          *string      `json:"buyer_tel"`
	BuyerAddr         *string      `json:"buyer_addr"`
	BuyerPostcode     *string      `json:"buyer_postcode"`
	CustomData        *string      `json:"custom_data"`
	UserAgent         *string      `json:"user_agent"`
	Status            string       `json:"status"`
	StartedAt         int64        `json:"started_at"`
	PaidAt            int64        `json:"paid_at"`
	FailedAt          int64        `json:"failed_at"`
	CancelledAt       int64        `json:"cancelled_at"`
	FailReason        *string      `json:"fail_reason"`
	CancelReason      *string      `json:"cancel_reason"`
	ReceiptURL        *string      `json:"receipt_url"`
	CancelHistory     []cancelJSON `json:"cancel_history"`
	CancelReceiptURLs []string     `json:"cancel_receipt_urls"`
	CashReceiptIssued bool         `json:"cash_receipt_issued"`
	CustomerUID       *string      `json:"customer_uid"`
	CustomerUIDUsage  *string      `json:"customer_uid_usage"`
}

type cancelJSON struct {
	PGTID       string      `json:"pg_tid"`
	Amount      json.Number `json:"amount"`
	CancelledAt int64       `json:"cancelled_at"`
	Reason      string      `json:"reason"`
	ReceiptURL  string      `json:"receipt_url"`
}

// null makes "" a JSON null.
func null(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func amount(v int64, c payport.Currency) json.Number {
	return json.Number(payport.FormatAmount(v, c))
}

func toPaymentJSON(p payport.Payment) paymentJSON {
	out := paymentJSON{
		IMPUID: p.IMPUID, MerchantUID: p.MerchantUID, PayMethod: null(p.PayMethod), Channel: null(p.Channel),
		PGProvider: null(p.PGProvider), EmbPGProvider: null(p.EmbPGProvider), PGTID: null(p.PGTID), PGID: null(p.PGID),
		Escrow: p.Escrow, ApplyNum: null(p.ApplyNum), BankCode: null(p.BankCode), BankName: null(p.BankName),
		CardCode: null(p.CardCode), CardName: null(p.CardName), CardQuota: p.CardQuota, CardNumber: null(p.CardNumber),
		CardType: null(p.CardType), VBankCode: null(p.VBankCode), VBankName: null(p.VBankName), VBankNum: null(p.VBankNum),
		VBankHolder: null(p.VBankHolder), VBankDate: p.VBankDate, VBankIssuedAt: p.VBankIssuedAt, Name: null(p.Name),
		Amount: amount(p.Amount, p.Currency), CancelAmount: amount(p.CancelAmount, p.Currency), Currency: string(p.Currency),
		BuyerName: null(p.BuyerName), BuyerEmail: null(p.BuyerEmail), BuyerTel: null(p.BuyerTel), BuyerAddr: null(p.BuyerAddr),
		BuyerPostcode: null(p.BuyerPostcode), CustomData: null(p.CustomData), UserAgent: null(p.UserAgent),
		Status: string(p.Status), StartedAt: p.StartedAt, PaidAt: p.PaidAt, FailedAt: p.FailedAt, CancelledAt: p.CancelledAt,
		FailReason: null(p.FailReason), CancelReason: null(p.CancelReason), ReceiptURL: null(p.ReceiptURL),
		CancelHistory: make([]cancelJSON, 0, len(p.CancelHistory)), CancelReceiptURLs: make([]string, 0, len(p.CancelHistory)),
		CashReceiptIssued: p.CashReceiptIssued, CustomerUID: null(p.CustomerUID), CustomerUIDUsage: null(p.CustomerUIDUsage),
	}
	for _, c := range p.CancelHistory {
		out.CancelHistory = append(out.CancelHistory, cancelJSON{
			PGTID: c.PGTID, Amount: amount(c.Amount, p.Currency), CancelledAt: c.CancelledAt, Reason: c.Reason, ReceiptURL: c.ReceiptURL,
		})
		if c.ReceiptURL != "" {
			out.CancelReceiptURLs = append(out.CancelReceiptURLs, c.ReceiptURL)
		}
	}
	return out
}
