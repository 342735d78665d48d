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

// ParseScheduleStatus validates a schedule status.
func ParseScheduleStatus(s string) (ScheduleStatus, bool) {
	switch st := ScheduleStatus(s); st {
	case ScheduleScheduled, ScheduleExecuted, ScheduleRevoked:
		return st, true
	}
	return "", false
}

// ScheduleQuery selects a billing key's schedules for the list API
// (decisions §5.4): From <= schedule_at < To, optionally in one status,
// newest schedule_at first, Limit rows after skipping Offset.
type ScheduleQuery struct {
	MerchantID  int64
	CustomerUID string
	From, To    int64
	Status      ScheduleStatus // "" for every status
	Offset      int
	Limit       int
}

// Schedule list limits (decisions §5.4).
const (
	SchedulePageSize     = 20
	ScheduleWindowMonths = 3
)
