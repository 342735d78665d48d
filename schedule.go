package payport

// ScheduleStatus is a schedule's state (spec §3).
type ScheduleStatus string

// Schedule statuses.
const (
	ScheduleScheduled ScheduleStatus = "scheduled"
	ScheduleExecuted  ScheduleStatus = "executed"
	ScheduleRevoked   ScheduleStatus = "revoked"
)

// Schedule is a payment reserved against a billing key (spec 2.4).
type Schedule struct {
	ID            int64
	MerchantID    int64
	CustomerUID   string
	MerchantUID   string
	IMPUID        string // "" until executed
	ScheduleAt    int64
	ExecutedAt    int64
	RevokedAt     int64
	Amount        int64
	TaxFree       int64
	Currency      Currency
	Name          string
	BuyerName     string
	BuyerEmail    string
	BuyerTel      string
	BuyerAddr     string
	BuyerPostcode string
	CustomData    string
	NoticeURL     string
	Status        ScheduleStatus
	PaymentStatus Status // "" until executed
	FailReason    string
}
