package payport

import "context"

// Card is card data as a merchant sends it to charge or register a card.
// It lives only for the duration of one request: payport never stores or
// logs it. Number and Expiry are checked by the gateway (decisions §4.3).
type Card struct {
	Number    string // dddd-dddd-dddd-dddd
	Expiry    string // YYYY-MM
	Birth     string // YYMMDD or a 10-digit business number; "" when not given
	PWD2Digit string
	CVC       string
}

// CardInfo is what a gateway tells about a card: never the full number.
type CardInfo struct {
	Code   string // issuer code, e.g. "366"
	Name   string // issuer name, e.g. "신한카드"
	Number string // masked, e.g. "424242******4242"
	Type   string // "0" credit, "1" debit, "" unknown
}

// BillingKey is a card registered with a gateway: the gateway's opaque
// token and what it told about the card.
type BillingKey struct {
	Token string
	Card  CardInfo
}

// ChargeRequest is one charge through a gateway.
type ChargeRequest struct {
	PG       PGSetting
	Amount   int64 // minor units of Currency
	Currency Currency
	Quota    int   // instalment months, 0 lump sum
	Now      int64 // the merchant's clock, UNIX seconds
}

// Charge is a gateway's answer to a charge. A declined charge is not an
// error: it becomes a failed payment (decisions §3.1).
type Charge struct {
	Approved   bool
	FailReason string // the issuer's reason when declined
	PGTID      string
	ApplyNum   string // approval number, when approved
	Card       CardInfo
	// Key is a billing key for the card charged by ChargeCard, usable when
	// the merchant asked to keep it; zero for ChargeKey.
	Key BillingKey
}

// RefundRequest refunds part or all of a payment through its gateway.
type RefundRequest struct {
	PG      PGSetting
	Payment Payment
	Amount  int64
	Now     int64
}

// Refund is a gateway's answer to a refund.
type Refund struct {
	PGTID string // the cancellation's approval number
}

// VBankRequest asks a gateway for a virtual account.
type VBankRequest struct {
	PG       PGSetting
	BankCode string
	Holder   string
	Amount   int64
	Currency Currency
	Due      int64
	Now      int64
}

// VBank is an issued virtual account.
type VBank struct {
	BankCode string
	BankName string
	Number   string
	Holder   string
	PGTID    string
}

// Gateway moves money: it is the seam between payport and the card
// networks. The built-in sandbox gateway decides outcomes from documented
// test cards; a real connector is another implementation.
//
// Errors: a card the gateway rejects before reaching the issuer (bad
// number, bad expiry) is a KindDeclined *Error whose message the client
// sees; a refusal of a business rule (unknown bank) is KindRefused; anything
// else is a failure to reach the gateway.
type Gateway interface {
	// IssueBillingKey registers card and returns its billing key. An issuer
	// that refuses the card is KindDeclined with the issuer's reason.
	IssueBillingKey(ctx context.Context, pg PGSetting, card Card, now int64) (BillingKey, error)
	// ChargeCard charges card data once, without keeping it.
	ChargeCard(ctx context.Context, card Card, req ChargeRequest) (Charge, error)
	// ChargeKey charges a billing key.
	ChargeKey(ctx context.Context, key BillingKey, req ChargeRequest) (Charge, error)
	// Refund refunds an amount of a payment.
	Refund(ctx context.Context, req RefundRequest) (Refund, error)
	// IssueVBank issues a virtual account.
	IssueVBank(ctx context.Context, req VBankRequest) (VBank, error)
}
