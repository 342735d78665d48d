package payport

import "strings"

// Status is a payment's state.
type Status string

// Payment statuses.
const (
	StatusReady     Status = "ready"
	StatusPaid      Status = "paid"
	StatusFailed    Status = "failed"
	StatusCancelled Status = "cancelled"
)

// ParseStatus validates a payment status.
func ParseStatus(s string) (Status, bool) {
	switch st := Status(s); st {
	case StatusReady, StatusPaid, StatusFailed, StatusCancelled:
		return st, true
	}
	return "", false
}

// customer_uid_usage values of a payment.
const (
	UsageIssue     = "issue"
	UsagePayment   = "payment"
	UsageScheduled = "payment.scheduled"
)

// Channel values of a payment.
const (
	ChannelPC     = "pc"
	ChannelMobile = "mobile"
	ChannelAPI    = "api"
)

// Payment is a payment record (spec 2.3). Amounts are minor units of
// Currency; timestamps are UNIX seconds, 0 when the event has not happened;
// an empty string is a field without a value.
type Payment struct {
	ID                int64
	MerchantID        int64
	IMPUID            string
	MerchantUID       string
	PayMethod         string
	Channel           string
	PGProvider        string
	EmbPGProvider     string
	PGTID             string
	PGID              string
	Escrow            bool
	ApplyNum          string
	BankCode          string
	BankName          string
	CardCode          string
	CardName          string
	CardQuota         int
	CardNumber        string // masked
	CardType          string // "0" credit, "1" debit, "" unknown
	VBankCode         string
	VBankName         string
	VBankNum          string
	VBankHolder       string
	VBankDate         int64
	VBankIssuedAt     int64
	Name              string
	Amount            int64
	CancelAmount      int64
	Currency          Currency
	BuyerName         string
	BuyerEmail        string
	BuyerTel          string
	BuyerAddr         string
	BuyerPostcode     string
	CustomData        string
	UserAgent         string
	Status            Status
	StartedAt         int64
	PaidAt            int64
	FailedAt          int64
	CancelledAt       int64
	FailReason        string
	CancelReason      string
	ReceiptURL        string
	CashReceiptIssued bool
	CustomerUID       string
	CustomerUIDUsage  string
	NoticeURL         string // where this payment's webhooks go; "" for the merchant's Notification URL
	UpdatedAt         int64
	CancelHistory     []CancelEntry
}

// Cancellable is the amount still refundable.
func (p *Payment) Cancellable() int64 { return p.Amount - p.CancelAmount }

// CancelEntry is one cancellation or partial cancellation of a payment.
type CancelEntry struct {
	ID          int64
	PaymentID   int64
	PGTID       string
	Amount      int64
	CancelledAt int64
	Reason      string
	ReceiptURL  string
}

// Sort orders the payments of one merchant_uid (spec 4.7).
type Sort struct {
	Field      string // "started", "paid" or "updated"
	Descending bool
}

// DefaultSort is the order of /payments/find without `sorting`: newest start first.
var DefaultSort = Sort{Field: "started", Descending: true}

// ParseSort validates a `sorting` value; "" yields DefaultSort.
func ParseSort(s string) (Sort, bool) {
	if s == "" {
		return DefaultSort, true
	}
	desc := strings.HasPrefix(s, "-")
	f := strings.TrimPrefix(s, "-")
	switch f {
	case "started", "paid", "updated":
		return Sort{Field: f, Descending: desc}, true
	}
	return Sort{}, false
}

// MaxMultiLookup is the most identifiers one GET /payments may name.
const MaxMultiLookup = 100
