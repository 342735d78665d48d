package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/payport/payport"
)

// Refusals of the schedule operations (decisions §5).
const (
	MsgNoCustomer       = "등록된 고객정보가 없습니다."
	MsgScheduleInPast   = "schedule_at은 현재 시각 이후여야 합니다."
	MsgNothingToRevoke  = "취소할 예약결제 기록이 존재하지 않습니다."
	MsgScheduleNotFound = "존재하지 않는 예약결제 정보입니다."
	DefaultScheduleName = "정기결제"
	maxSchedulesPerCall = 1000
)

// ScheduleItem is one entry of `schedules` in POST /subscribe/payments/schedule.
type ScheduleItem struct {
	ChargeInput
	ScheduleAt *int64
}

// ScheduleInput is the body of POST /subscribe/payments/schedule (spec 4.10).
// Card.Number set means card data was given: the billing key is issued
// (or replaced) before the schedules are stored.
type ScheduleInput struct {
	CustomerUID string
	Card        CardInput
	PG          string
	Customer    CustomerInput // customer_* fields for a newly issued key
	Schedules   []ScheduleItem
}

type validItem struct {
	ScheduleItem
	cur    payport.Currency
	amount int64
}

func (in *ScheduleInput) validate(now int64) ([]validItem, error) {
	if err := validCustomerUID(in.CustomerUID); err != nil {
		return nil, err
	}
	if in.Card.Number != "" || in.Card.Expiry != "" {
		in.Customer.Card = in.Card
		if err := in.Customer.validate(in.CustomerUID); err != nil {
			return nil, err
		}
	}
	switch n := len(in.Schedules); {
	case n == 0:
		return nil, payport.Invalid("schedules", "at least one schedule is required")
	case n > maxSchedulesPerCall:
		return nil, payport.Invalid("schedules", fmt.Sprintf("at most %d schedules per request, got %d", maxSchedulesPerCall, n))
	}
	items := make([]validItem, len(in.Schedules))
	seen := make(map[string]bool, len(in.Schedules))
	for i, it := range in.Schedules {
		it.Name = orDefault(it.Name, DefaultScheduleName)
		cur, amount, err := it.validate()
		if err != nil {
			return nil, prefixField(fmt.Sprintf("schedules[%d].", i), err)
		}
		if it.ScheduleAt == nil {
			return nil, payport.Invalid(fmt.Sprintf("schedules[%d].schedule_at", i), "required")
		}
		if *it.ScheduleAt <= now {
			return nil, payport.Errorf(payport.KindRefused, "%s", MsgScheduleInPast)
		}
		if seen[it.MerchantUID] {
			return nil, payport.Errorf(payport.KindRefused, "%s", payport.MsgMerchantUIDUsed)
		}
		seen[it.MerchantUID] = true
		items[i] = validItem{it, cur, amount}
	}
	return items, nil
}

// prefixField puts prefix before the field a KindInvalid error names.
func prefixField(prefix string, err error) error {
	var e *payport.Error
	if errors.As(err, &e) && e.Kind == payport.KindInvalid {
		return &payport.Error{Kind: payport.KindInvalid, Message: prefix + e.Message}
	}
	return err
}

// Schedule implements POST /subscribe/payments/schedule (decisions §5.2):
// all items are stored or none. A new customer_uid needs card data, which
// issues its billing key in the same transaction.
func (s *Service) Schedule(ctx context.Context, m payport.Merchant, in ScheduleInput) ([]payport.Schedule, error) {
	now := s.now(m)
	items, err := in.validate(now)
	if err != nil {
		return nil, err
	}
	settings, err := s.store.PGSettings(ctx, m.ID)
	if err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	var pg payport.PGSetting
	if in.Card.Number != "" {
		if pg, err = resolveNonAuthPG(settings, in.PG); err != nil {
			return nil, err
		}
	}
	out := make([]payport.Schedule, 0, len(items))
	err = s.store.Update(ctx, func(tx payport.Tx) error {
		c, err := tx.CustomerByUID(ctx, m.ID, in.CustomerUID)
		switch {
		case in.Card.Number != "":
			if c, err = s.issueCustomer(ctx, tx, m, in.CustomerUID, pg, in.Customer, now); err != nil {
				return err
			}
		case payport.IsNotFound(err):
			return payport.Errorf(payport.KindRefused, "%s", MsgNoCustomer)
		case err != nil:
			return err
		}
		for _, it := range items {
			sc := newSchedule(m, c, it)
			if err := claimOrder(ctx, tx, m, sc.MerchantUID); err != nil {
				return err
			}
			if err := tx.InsertSchedule(ctx, &sc); payport.IsConflict(err) {
				return payport.Errorf(payport.KindRefused, "%s", payport.MsgMerchantUIDUsed)
			} else if err != nil {
				return err
			}
			out = append(out, sc)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	s.wakeScheduler()
	return out, nil
}

// newSchedule is the record of a validated item; absent buyer fields take
// the billing key's customer fields (spec 4.10).
func newSchedule(m payport.Merchant, c payport.Customer, it validItem) payport.Schedule {
	return payport.Schedule{
		MerchantID: m.ID, CustomerUID: c.CustomerUID, MerchantUID: it.MerchantUID, ScheduleAt: *it.ScheduleAt,
		Amount: it.amount, Currency: it.cur, Name: it.Name, CustomData: it.CustomData, NoticeURL: it.NoticeURL,
		BuyerName: orDefault(it.BuyerName, c.CustomerName), BuyerEmail: orDefault(it.BuyerEmail, c.CustomerEmail),
		BuyerTel: orDefault(it.BuyerTel, c.CustomerTel), BuyerAddr: orDefault(it.BuyerAddr, c.CustomerAddr),
		BuyerPostcode: orDefault(it.BuyerPostcode, c.CustomerPostcode), Status: payport.ScheduleScheduled,
	}
}

// ScheduleListInput is the query of GET /subscribe/payments/schedule/customers/{customer_uid}.
type ScheduleListInput struct {
	CustomerUID string
	From, To    *int64
	Status      string
	Page        *int64
}

// ScheduleList is one page of a billing key's schedules.
type ScheduleList struct {
	Schedules      []payport.Schedule
	Total          int
	Previous, Next int // page numbers, 0 when none
}

// Schedules implements the schedule list (decisions §5.4): from <=
// schedule_at < to within 3 calendar months, newest first, 20 a page.
func (s *Service) Schedules(ctx context.Context, m payport.Merchant, in ScheduleListInput) (ScheduleList, error) {
	q, err := in.query(m)
	if err != nil {
		return ScheduleList{}, err
	}
	list, total, err := s.store.Schedules(ctx, q)
	if err != nil {
		return ScheduleList{}, fmt.Errorf("schedules of %s: %w", in.CustomerUID, err)
	}
	page := q.Offset/q.Limit + 1
	out := ScheduleList{Schedules: list, Total: total}
	if page > 1 {
		out.Previous = page - 1
	}
	if q.Offset+len(list) < total {
		out.Next = page + 1
	}
	return out, nil
}

func (in ScheduleListInput) query(m payport.Merchant) (payport.ScheduleQuery, error) {
	q := payport.ScheduleQuery{MerchantID: m.ID, CustomerUID: in.CustomerUID, Limit: payport.SchedulePageSize}
	switch {
	case in.From == nil:
		return q, payport.Invalid("from", "required")
	case in.To == nil:
		return q, payport.Invalid("to", "required")
	case *in.To <= *in.From:
		return q, payport.Invalid("to", "must be after from")
	}
	q.From, q.To = *in.From, *in.To
	limit := time.Unix(q.From, 0).In(payport.KST).AddDate(0, payport.ScheduleWindowMonths, 0).Unix()
	if q.To > limit {
		return q, payport.Invalid("to", fmt.Sprintf("the window from..to must be at most %d months (to <= %d)", payport.ScheduleWindowMonths, limit))
	}
	if in.Status != "" {
		st, ok := payport.ParseScheduleStatus(in.Status)
		if !ok {
			return q, payport.Invalid("schedule-status", "must be one of scheduled, executed, revoked")
		}
		q.Status = st
	}
	if in.Page != nil {
		if *in.Page < 1 || *in.Page > 100000 {
			return q, payport.Invalid("page", "must be a page number from 1")
		}
		q.Offset = int(*in.Page-1) * q.Limit
	}
	return q, nil
}

// ScheduleByMerchantUID implements GET /subscribe/payments/schedule/{merchant_uid}.
func (s *Service) ScheduleByMerchantUID(ctx context.Context, m payport.Merchant, merchantUID string) (payport.Schedule, error) {
	sc, err := s.store.ScheduleByMerchantUID(ctx, m.ID, merchantUID)
	if payport.IsNotFound(err) {
		return sc, payport.Errorf(payport.KindNotFound, "%s", MsgScheduleNotFound)
	} else if err != nil {
		return sc, fmt.Errorf("schedule %s: %w", merchantUID, err)
	}
	return sc, nil
}

// UnscheduleInput is the body of POST /subscribe/payments/unschedule (decisions §5.5).
type UnscheduleInput struct {
	CustomerUID  string
	MerchantUIDs []string
}

// Unschedule revokes the schedules still scheduled that the input names.
// A revoke racing an execution: exactly one of them wins (both are
// conditional on the schedule still being scheduled).
func (s *Service) Unschedule(ctx context.Context, m payport.Merchant, in UnscheduleInput) ([]payport.Schedule, error) {
	if in.CustomerUID == "" && len(in.MerchantUIDs) == 0 {
		return nil, payport.Invalid("customer_uid, merchant_uid", "at least one is required")
	}
	if len(in.MerchantUIDs) > maxSchedulesPerCall {
		return nil, payport.Invalid("merchant_uid", fmt.Sprintf("at most %d order numbers", maxSchedulesPerCall))
	}
	var out []payport.Schedule
	err := s.store.Update(ctx, func(tx payport.Tx) error {
		var err error
		if out, err = tx.RevokeSchedules(ctx, m.ID, in.CustomerUID, in.MerchantUIDs, s.now(m)); err != nil {
			return err
		}
		if len(out) == 0 {
			return payport.Errorf(payport.KindRefused, "%s", MsgNothingToRevoke)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("unschedule: %w", err)
	}
	return out, nil
}

// RunDueSchedules executes up to limit due schedules in one transaction
// (decisions §5.3): for each, the billing key is charged, the payment and
// its webhook are written and the schedule becomes executed, all or none.
// It returns how many ran. A key that was deleted or declines gives a
// failed payment; a gateway that cannot be reached rolls the batch back for
// a later retry.
func (s *Service) RunDueSchedules(ctx context.Context, limit int) (int, error) {
	serverNow := s.clock.Now().Unix()
	var done []payport.Schedule
	err := s.store.Update(ctx, func(tx payport.Tx) error {
		done = done[:0]
		due, err := tx.DueSchedules(ctx, serverNow, limit)
		if err != nil {
			return err
		}
		merchants := map[int64]payport.Merchant{}
		settings := map[int64][]payport.PGSetting{}
		for _, sc := range due {
			m, ok := merchants[sc.MerchantID]
			if !ok {
				if m, err = tx.MerchantByID(ctx, sc.MerchantID); err != nil {
					return err
				}
				if settings[m.ID], err = tx.PGSettings(ctx, m.ID); err != nil {
					return err
				}
				merchants[m.ID] = m
			}
			executed, err := s.execute(ctx, tx, m, settings[m.ID], sc, serverNow+m.ClockOffset)
			if err != nil {
				return fmt.Errorf("schedule %d (%s): %w", sc.ID, sc.MerchantUID, err)
			}
			done = append(done, executed)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("run due schedules: %w", err)
	}
	for _, sc := range done {
		s.observe.ScheduleExecuted(time.Duration(sc.ExecutedAt-sc.ScheduleAt)*time.Second, sc.PaymentStatus)
		s.observe.PaymentChanged(sc.PaymentStatus)
	}
	return len(done), nil
}

// errScheduleTaken reports a schedule that changed under the transaction
// that executes it; the batch is rolled back and retried.
var errScheduleTaken = errors.New("schedule is no longer scheduled")

func (s *Service) execute(ctx context.Context, tx payport.Tx, m payport.Merchant, settings []payport.PGSetting, sc payport.Schedule, now int64) (payport.Schedule, error) {
	in := ChargeInput{Order: Order{
		MerchantUID: sc.MerchantUID, Name: sc.Name, BuyerName: sc.BuyerName, BuyerEmail: sc.BuyerEmail,
		BuyerTel: sc.BuyerTel, BuyerAddr: sc.BuyerAddr, BuyerPostcode: sc.BuyerPostcode, CustomData: sc.CustomData,
		NoticeURL: sc.NoticeURL,
	}}
	c, err := tx.CustomerByUID(ctx, m.ID, sc.CustomerUID)
	var p payport.Payment
	switch {
	case payport.IsNotFound(err): // deleted since: the charge fails
		p = orderPayment(m, in.Order, sc.Currency, sc.Amount, now)
		p.PayMethod, p.Channel, p.Status, p.FailedAt, p.FailReason = "card", payport.ChannelAPI, payport.StatusFailed, now, MsgUnknownCard
		p.CustomerUID, p.CustomerUIDUsage = sc.CustomerUID, payport.UsageScheduled
	case err != nil:
		return sc, err
	default:
		if p, err = s.chargeKey(ctx, m, c, settings, in, sc.Currency, sc.Amount, now, payport.UsageScheduled); err != nil {
			return sc, err
		}
	}
	if err := s.insertPayment(ctx, tx, &p); err != nil {
		return sc, err
	}
	sc.IMPUID, sc.ExecutedAt, sc.PaymentStatus, sc.FailReason = p.IMPUID, now, p.Status, p.FailReason
	claimed, err := tx.FinishSchedule(ctx, sc)
	if err != nil {
		return sc, err
	}
	if !claimed {
		return sc, errScheduleTaken
	}
	return sc, s.queueWebhook(ctx, tx, m, p, string(p.Status), "", now)
}

// AdvanceClock moves the merchant's sandbox test clock forward (decisions
// §6) and wakes the scheduler so that schedules now due run at once.
func (s *Service) AdvanceClock(ctx context.Context, m payport.Merchant, seconds *int64) (Clock, error) {
	if seconds == nil {
		return Clock{}, payport.Invalid("seconds", "required")
	}
	if *seconds <= 0 || *seconds > 100*365*86400 {
		return Clock{}, payport.Invalid("seconds", "must be a positive number of seconds (the clock never goes back)")
	}
	var out Clock
	err := s.store.Update(ctx, func(tx payport.Tx) error {
		cur, err := tx.LockMerchant(ctx, m.ID)
		if err != nil {
			return err
		}
		cur.ClockOffset += *seconds
		out = Clock{Now: s.now(cur), OffsetSeconds: cur.ClockOffset}
		return tx.UpdateMerchant(ctx, cur)
	})
	s.auth.invalidate() // tokens expire on the merchant's clock
	if err != nil {
		return Clock{}, fmt.Errorf("advance clock: %w", err)
	}
	s.wakeScheduler()
	return out, nil
}

// Clock is the answer of the sandbox clock API.
type Clock struct {
	Now           int64 `json:"now"`
	OffsetSeconds int64 `json:"offset_seconds"`
}

// MerchantClock implements GET /sandbox/clock.
func (s *Service) MerchantClock(m payport.Merchant) Clock {
	return Clock{Now: s.now(m), OffsetSeconds: m.ClockOffset}
}
