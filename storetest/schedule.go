package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/payport/payport"
)

// sampleSchedule is a scheduled payment with every request field set.
func sampleSchedule(merchantID int64, customerUID, merchantUID string, at int64) payport.Schedule {
	return payport.Schedule{
		MerchantID: merchantID, CustomerUID: customerUID, MerchantUID: merchantUID, ScheduleAt: at,
		Amount: 9900, TaxFree: 900, Currency: "KRW", Name: "정기결제", BuyerName: "홍길동",
		BuyerEmail: "a@b.test", BuyerTel: "010-1234-5678", BuyerAddr: "서울", BuyerPostcode: "12345",
		CustomData: `{"plan":"pro"}`, NoticeURL: "https://shop.test/hooks/schedule",
		Status: payport.ScheduleScheduled,
	}
}

// insertSchedules inserts ss in one transaction and returns them with their ids set.
func insertSchedules(t *testing.T, s payport.Store, ss ...payport.Schedule) []payport.Schedule {
	t.Helper()
	update(t, s, func(tx payport.Tx) error {
		for i := range ss {
			if err := tx.InsertSchedule(ctx, &ss[i]); err != nil {
				return err
			}
		}
		return nil
	})
	for _, sc := range ss {
		if sc.ID == 0 {
			t.Fatalf("InsertSchedule did not set the id")
		}
	}
	return ss
}

// rereadSchedule returns the merchant's schedule as stored now.
func rereadSchedule(t *testing.T, s payport.Store, merchantID int64, merchantUID string) payport.Schedule {
	t.Helper()
	got, err := s.ScheduleByMerchantUID(ctx, merchantID, merchantUID)
	if err != nil {
		t.Fatalf("schedule %s: %v", merchantUID, err)
	}
	return got
}

// scheduleUIDs lists the merchant_uids of list, in order.
func scheduleUIDs(list []payport.Schedule) []string {
	out := []string{}
	for _, sc := range list {
		out = append(out, sc.MerchantUID)
	}
	return out
}

func testScheduleRoundTrip(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	_, err := s.ScheduleByMerchantUID(ctx, m.ID, "sch-1")
	wantKind(t, err, payport.KindNotFound, "no schedule yet")

	fresh := sampleSchedule(m.ID, "cust-1", "sch-1", 1_800_000_000)
	// Every field set, the executed ones included.
	full := sampleSchedule(m.ID, "cust-1", "sch-2", 1_800_000_100)
	full.IMPUID, full.ExecutedAt, full.RevokedAt = "imp_500000000001", 1_800_000_101, 1_800_000_102
	full.Currency, full.Status, full.PaymentStatus, full.FailReason = "USD", payport.ScheduleExecuted, payport.StatusFailed, "한도 초과"
	got := insertSchedules(t, s, fresh, full)
	fresh, full = got[0], got[1]
	if fresh.ID == full.ID {
		t.Fatalf("schedules share id %d", fresh.ID)
	}
	wantEqual(t, "fresh schedule", rereadSchedule(t, s, m.ID, "sch-1"), fresh)
	wantEqual(t, "full schedule", rereadSchedule(t, s, m.ID, "sch-2"), full)
	var inTx payport.Schedule
	update(t, s, func(tx payport.Tx) error {
		var err error
		inTx, err = tx.ScheduleByMerchantUID(ctx, m.ID, "sch-2")
		return err
	})
	wantEqual(t, "schedule in a transaction", inTx, full)
}

func testScheduleDuplicateAndIsolation(t *testing.T, s payport.Store) {
	a, b := newMerchant(t, s), newMerchant(t, s)
	sa := insertSchedules(t, s, sampleSchedule(a.ID, "cust-1", "shared", 1_800_000_000))[0]
	dup := sampleSchedule(a.ID, "cust-2", "shared", 1_800_000_500)
	err := s.Update(ctx, func(tx payport.Tx) error { return tx.InsertSchedule(ctx, &dup) })
	wantKind(t, err, payport.KindConflict, "merchant_uid reused by the same merchant")

	_, err = s.ScheduleByMerchantUID(ctx, b.ID, "shared")
	wantKind(t, err, payport.KindNotFound, "other merchant's merchant_uid")
	sb := insertSchedules(t, s, sampleSchedule(b.ID, "cust-1", "shared", 1_800_000_900))[0]
	wantEqual(t, "a's schedule", rereadSchedule(t, s, a.ID, "shared"), sa)
	wantEqual(t, "b's schedule", rereadSchedule(t, s, b.ID, "shared"), sb)
	list, total, err := s.Schedules(ctx, payport.ScheduleQuery{MerchantID: b.ID, CustomerUID: "cust-1", From: 0, To: 2_000_000_000, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 {
		t.Fatalf("b's schedules: total %d", total)
	}
	wantEqual(t, "b's schedule list", list, []payport.Schedule{sb})
}

func testScheduleList(t *testing.T, s payport.Store) {
	m, other := newMerchant(t, s), newMerchant(t, s)
	const base = 1_800_000_000
	mk := func(uid string, at int64) payport.Schedule { return sampleSchedule(m.ID, "cust-1", uid, base+at) }
	ss := insertSchedules(t, s,
		mk("before", 99), // before the window
		mk("from", 100),  // at From: included
		mk("mid-a", 200), // same schedule_at as mid-b, inserted first
		mk("mid-b", 200), //
		mk("late", 399),  // last second inside
		mk("to", 400),    // at To: excluded
		sampleSchedule(m.ID, "cust-2", "other-customer", base+200),
		sampleSchedule(other.ID, "cust-1", "other-merchant", base+200),
	)
	update(t, s, func(tx payport.Tx) error {
		_, err := tx.RevokeSchedules(ctx, m.ID, "", []string{"mid-a"}, base+1)
		return err
	})
	q := payport.ScheduleQuery{MerchantID: m.ID, CustomerUID: "cust-1", From: base + 100, To: base + 400, Limit: 20}
	list, total, err := s.Schedules(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if total != 4 {
		t.Fatalf("total %d, want 4", total)
	}
	wantEqual(t, "window, newest first", scheduleUIDs(list), []string{"late", "mid-b", "mid-a", "from"})
	wantEqual(t, "listed row", list[1], ss[3])

	for _, c := range []struct {
		offset, limit int
		want          []string
	}{
		{0, 2, []string{"late", "mid-b"}},
		{2, 2, []string{"mid-a", "from"}},
		{3, 2, []string{"from"}},
		{4, 2, []string{}},
		{9, 2, []string{}},
	} {
		q := q
		q.Offset, q.Limit = c.offset, c.limit
		list, total, err := s.Schedules(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if total != 4 {
			t.Fatalf("offset %d limit %d: total %d, want 4", c.offset, c.limit, total)
		}
		wantEqual(t, fmt.Sprintf("offset %d limit %d", c.offset, c.limit), scheduleUIDs(list), c.want)
	}

	for _, c := range []struct {
		status payport.ScheduleStatus
		want   []string
	}{
		{payport.ScheduleScheduled, []string{"late", "mid-b", "from"}},
		{payport.ScheduleRevoked, []string{"mid-a"}},
		{payport.ScheduleExecuted, []string{}},
	} {
		q := q
		q.Status = c.status
		list, total, err := s.Schedules(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if total != len(c.want) {
			t.Fatalf("status %s: total %d, want %d", c.status, total, len(c.want))
		}
		wantEqual(t, "status "+string(c.status), scheduleUIDs(list), c.want)
	}

	q.CustomerUID = "nobody"
	list, total, err = s.Schedules(ctx, q)
	if err != nil || total != 0 || len(list) != 0 {
		t.Fatalf("unknown customer: %d rows, total %d, %v", len(list), total, err)
	}
}

// dueSchedules runs DueSchedules in a transaction.
func dueSchedules(t *testing.T, s payport.Store, now int64, limit int) []payport.Schedule {
	t.Helper()
	var list []payport.Schedule
	update(t, s, func(tx payport.Tx) error {
		var err error
		list, err = tx.DueSchedules(ctx, now, limit)
		return err
	})
	return list
}

func testScheduleDue(t *testing.T, s payport.Store) {
	a, b := newMerchant(t, s), newMerchant(t, s)
	b.ClockOffset = 3600 // b's test clock is an hour ahead
	update(t, s, func(tx payport.Tx) error { return tx.UpdateMerchant(ctx, b) })
	const now = 1_800_000_000
	executed := sampleSchedule(a.ID, "c", "a-executed", now-30)
	executed.Status, executed.IMPUID, executed.ExecutedAt, executed.PaymentStatus = payport.ScheduleExecuted, "imp_500000000002", now-30, payport.StatusPaid
	revoked := sampleSchedule(a.ID, "c", "a-revoked", now-40)
	revoked.Status, revoked.RevokedAt = payport.ScheduleRevoked, now-50
	ss := insertSchedules(t, s,
		sampleSchedule(b.ID, "c", "b-half-hour", now+1800), // due on b's clock
		sampleSchedule(a.ID, "c", "a-now-2", now),          // same time as a-now-1, inserted first
		sampleSchedule(a.ID, "c", "a-now-1", now),
		sampleSchedule(a.ID, "c", "a-past", now-10),
		sampleSchedule(a.ID, "c", "a-next-second", now+1),
		sampleSchedule(a.ID, "c", "a-half-hour", now+1800), // the same schedule as b's: not due for a
		sampleSchedule(b.ID, "c", "b-hour", now+3600),      // due exactly now on b's clock
		sampleSchedule(b.ID, "c", "b-hour-and-second", now+3601),
		executed, revoked,
	)
	list := dueSchedules(t, s, now, 100)
	wantEqual(t, "due schedules", scheduleUIDs(list), []string{"a-past", "a-now-2", "a-now-1", "b-half-hour", "b-hour"})
	wantEqual(t, "due row", list[3], ss[0])
	wantEqual(t, "limit 2", scheduleUIDs(dueSchedules(t, s, now, 2)), []string{"a-past", "a-now-2"})
	wantEqual(t, "an hour earlier", scheduleUIDs(dueSchedules(t, s, now-3600, 100)), []string{})
	wantEqual(t, "a second later", scheduleUIDs(dueSchedules(t, s, now+1, 100)),
		[]string{"a-past", "a-now-2", "a-now-1", "a-next-second", "b-half-hour", "b-hour", "b-hour-and-second"})

	// Executed and revoked ones are no longer due.
	update(t, s, func(tx payport.Tx) error {
		fin := ss[3]
		fin.IMPUID, fin.ExecutedAt, fin.PaymentStatus = "imp_500000000003", now, payport.StatusPaid
		if ok, err := tx.FinishSchedule(ctx, fin); err != nil || !ok {
			return fmt.Errorf("finish: %v %v", ok, err)
		}
		_, err := tx.RevokeSchedules(ctx, b.ID, "", []string{"b-hour"}, now)
		return err
	})
	wantEqual(t, "due after finish and revoke", scheduleUIDs(dueSchedules(t, s, now, 100)), []string{"a-now-2", "a-now-1", "b-half-hour"})
}

func testScheduleFinish(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	ss := insertSchedules(t, s,
		sampleSchedule(m.ID, "c", "paid", 1_800_000_000),
		sampleSchedule(m.ID, "c", "failed", 1_800_000_000),
		sampleSchedule(m.ID, "c", "revoked", 1_800_000_000))
	finish := func(sc payport.Schedule) bool {
		t.Helper()
		var ok bool
		update(t, s, func(tx payport.Tx) error {
			var err error
			ok, err = tx.FinishSchedule(ctx, sc)
			return err
		})
		return ok
	}

	paid := ss[0]
	paid.Status, paid.IMPUID, paid.ExecutedAt, paid.PaymentStatus = payport.ScheduleExecuted, "imp_500000000011", 1_800_000_001, payport.StatusPaid
	if !finish(paid) {
		t.Fatalf("first FinishSchedule did not claim")
	}
	wantEqual(t, "executed paid", rereadSchedule(t, s, m.ID, "paid"), paid)
	again := paid
	again.IMPUID, again.ExecutedAt, again.PaymentStatus, again.FailReason = "imp_500000000012", 1_800_000_002, payport.StatusFailed, "again"
	if finish(again) {
		t.Fatalf("second FinishSchedule claimed again")
	}
	wantEqual(t, "after second finish", rereadSchedule(t, s, m.ID, "paid"), paid)

	failed := ss[1]
	failed.Status, failed.IMPUID, failed.ExecutedAt = payport.ScheduleExecuted, "imp_500000000013", 1_800_000_003
	failed.PaymentStatus, failed.FailReason = payport.StatusFailed, "등록되지 않은 구매자입니다."
	if !finish(failed) {
		t.Fatalf("FinishSchedule of a failed payment did not claim")
	}
	wantEqual(t, "executed failed", rereadSchedule(t, s, m.ID, "failed"), failed)

	update(t, s, func(tx payport.Tx) error {
		_, err := tx.RevokeSchedules(ctx, m.ID, "", []string{"revoked"}, 1_700_000_000)
		return err
	})
	rev := ss[2]
	rev.IMPUID, rev.ExecutedAt, rev.PaymentStatus = "imp_500000000014", 1_800_000_004, payport.StatusPaid
	if finish(rev) {
		t.Fatalf("FinishSchedule claimed a revoked schedule")
	}
	if got := rereadSchedule(t, s, m.ID, "revoked"); got.Status != payport.ScheduleRevoked || got.IMPUID != "" {
		t.Fatalf("revoked schedule changed by FinishSchedule: %+v", got)
	}
}

// revoke runs RevokeSchedules in a transaction.
func revoke(t *testing.T, s payport.Store, merchantID int64, customerUID string, uids []string, at int64) []payport.Schedule {
	t.Helper()
	var list []payport.Schedule
	update(t, s, func(tx payport.Tx) error {
		var err error
		list, err = tx.RevokeSchedules(ctx, merchantID, customerUID, uids, at)
		return err
	})
	return list
}

func testScheduleRevoke(t *testing.T, s payport.Store) {
	m, other := newMerchant(t, s), newMerchant(t, s)
	executed := sampleSchedule(m.ID, "c1", "o3", 200)
	executed.Status, executed.IMPUID, executed.ExecutedAt, executed.PaymentStatus = payport.ScheduleExecuted, "imp_500000000021", 200, payport.StatusPaid
	insertSchedules(t, s,
		sampleSchedule(m.ID, "c1", "o1", 300),
		sampleSchedule(m.ID, "c1", "o2", 100),
		executed,
		sampleSchedule(m.ID, "c2", "o4", 150),
		sampleSchedule(m.ID, "c2", "o5", 250),
		sampleSchedule(m.ID, "c1", "o6", 50), // inserted last, scheduled first
		sampleSchedule(other.ID, "c1", "o1", 300),
	)

	err := s.Update(ctx, func(tx payport.Tx) error {
		_, err := tx.RevokeSchedules(ctx, m.ID, "", nil, 10)
		return err
	})
	if err == nil {
		t.Fatalf("RevokeSchedules without customer_uid or merchant_uids succeeded")
	}
	err = s.Update(ctx, func(tx payport.Tx) error {
		_, err := tx.RevokeSchedules(ctx, m.ID, "", []string{}, 10)
		return err
	})
	if err == nil {
		t.Fatalf("RevokeSchedules with an empty merchant_uids list succeeded")
	}
	list, total, err := s.Schedules(ctx, payport.ScheduleQuery{MerchantID: m.ID, CustomerUID: "c1", From: 0, To: 1000, Status: payport.ScheduleRevoked, Limit: 20})
	if err != nil || total != 0 || len(list) != 0 {
		t.Fatalf("revoked after refused calls: %d, %v", total, err)
	}

	// wantRevoked checks the returned rows against the stored ones.
	wantRevoked := func(what string, got []payport.Schedule, uids []string, at int64) {
		t.Helper()
		wantEqual(t, what, scheduleUIDs(got), uids)
		for _, sc := range got {
			if sc.Status != payport.ScheduleRevoked || sc.RevokedAt != at {
				t.Fatalf("%s: returned %s as %s at %d", what, sc.MerchantUID, sc.Status, sc.RevokedAt)
			}
			wantEqual(t, what+": stored row", rereadSchedule(t, s, m.ID, sc.MerchantUID), sc)
		}
	}
	// Both: the customer's orders among the list (o4 is c2's).
	wantRevoked("customer and merchant_uids", revoke(t, s, m.ID, "c1", []string{"o1", "o4", "nope"}, 11), []string{"o1"}, 11)
	// Customer only: all its scheduled ones, oldest schedule_at first; o3 is executed.
	wantRevoked("customer only", revoke(t, s, m.ID, "c1", nil, 12), []string{"o6", "o2"}, 12)
	// merchant_uids only, whoever the customer; executed and revoked ones are left alone.
	wantRevoked("merchant_uids only", revoke(t, s, m.ID, "", []string{"o5", "o3", "o1", "o4"}, 13), []string{"o4", "o5"}, 13)
	if got := revoke(t, s, m.ID, "c1", nil, 14); len(got) != 0 {
		t.Fatalf("revoking again returned %v", scheduleUIDs(got))
	}
	if got := rereadSchedule(t, s, m.ID, "o3"); got.Status != payport.ScheduleExecuted || got.RevokedAt != 0 {
		t.Fatalf("executed schedule revoked: %+v", got)
	}
	if got := rereadSchedule(t, s, other.ID, "o1"); got.Status != payport.ScheduleScheduled {
		t.Fatalf("other merchant's schedule revoked: %+v", got)
	}
}

func testScheduleFinishRacesRevoke(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	for round := 0; round < 20; round++ {
		uid := fmt.Sprintf("race-%d", round)
		sc := insertSchedules(t, s, sampleSchedule(m.ID, "c", uid, 1_800_000_000))[0]
		var finished, revoked bool
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			fin := sc
			fin.IMPUID, fin.ExecutedAt, fin.PaymentStatus = fmt.Sprintf("imp_6%011d", round), 1_800_000_001, payport.StatusPaid
			err := s.Update(ctx, func(tx payport.Tx) error {
				var err error
				finished, err = tx.FinishSchedule(ctx, fin)
				return err
			})
			if err != nil {
				t.Errorf("finish: %v", err)
			}
		}()
		go func() {
			defer wg.Done()
			err := s.Update(ctx, func(tx payport.Tx) error {
				list, err := tx.RevokeSchedules(ctx, m.ID, "c", []string{uid}, 1_799_999_999)
				revoked = len(list) == 1
				return err
			})
			if err != nil {
				t.Errorf("revoke: %v", err)
			}
		}()
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		if finished == revoked {
			t.Fatalf("round %d: finished %v, revoked %v; want exactly one", round, finished, revoked)
		}
		got := rereadSchedule(t, s, m.ID, uid)
		switch {
		case finished && (got.Status != payport.ScheduleExecuted || got.IMPUID == "" || got.RevokedAt != 0):
			t.Fatalf("round %d: finish won but the row is %+v", round, got)
		case revoked && (got.Status != payport.ScheduleRevoked || got.IMPUID != "" || got.RevokedAt != 1_799_999_999):
			t.Fatalf("round %d: revoke won but the row is %+v", round, got)
		}
	}
}

func testSchedulePaymentStatus(t *testing.T, s payport.Store) {
	m, other := newMerchant(t, s), newMerchant(t, s)
	ss := insertSchedules(t, s,
		sampleSchedule(m.ID, "c", "executed", 1_800_000_000),
		sampleSchedule(m.ID, "c", "pending", 1_800_000_000))
	exec := ss[0]
	exec.Status, exec.IMPUID, exec.ExecutedAt, exec.PaymentStatus = payport.ScheduleExecuted, "imp_500000000031", 1_800_000_001, payport.StatusPaid
	update(t, s, func(tx payport.Tx) error {
		_, err := tx.FinishSchedule(ctx, exec)
		return err
	})
	update(t, s, func(tx payport.Tx) error {
		return tx.SetSchedulePaymentStatus(ctx, other.ID, exec.IMPUID, payport.StatusCancelled)
	})
	wantEqual(t, "after another merchant's call", rereadSchedule(t, s, m.ID, "executed"), exec)
	update(t, s, func(tx payport.Tx) error {
		if err := tx.SetSchedulePaymentStatus(ctx, m.ID, "imp_599999999999", payport.StatusCancelled); err != nil {
			return err
		}
		return tx.SetSchedulePaymentStatus(ctx, m.ID, "", payport.StatusCancelled)
	})
	wantEqual(t, "pending schedule untouched", rereadSchedule(t, s, m.ID, "pending"), ss[1])
	update(t, s, func(tx payport.Tx) error {
		return tx.SetSchedulePaymentStatus(ctx, m.ID, exec.IMPUID, payport.StatusCancelled)
	})
	exec.PaymentStatus = payport.StatusCancelled
	wantEqual(t, "cancelled", rereadSchedule(t, s, m.ID, "executed"), exec)
}

// sampleEvent is a pending event of the merchant, due at next.
func sampleEvent(merchantID int64, webhookID string, next int64) payport.Event {
	return payport.Event{WebhookID: webhookID, MerchantID: merchantID, URL: "https://shop.test/hook", Type: "paid",
		IMPUID: "imp_" + webhookID, MerchantUID: "order-" + webhookID, Status: "paid", CancelID: "cx-" + webhookID,
		CreatedAt: 1_700_000_000, State: payport.EventPending, NextAttemptAt: next}
}

// insertEvents inserts es in one transaction and returns them with their ids set.
func insertEvents(t *testing.T, s payport.Store, es ...payport.Event) []payport.Event {
	t.Helper()
	update(t, s, func(tx payport.Tx) error {
		for i := range es {
			if err := tx.InsertEvent(ctx, &es[i]); err != nil {
				return err
			}
		}
		return nil
	})
	return es
}

// claim runs ClaimEvents in a transaction and returns the claimed webhook ids.
func claim(t *testing.T, s payport.Store, now, leaseUntil int64, limit int) []payport.Event {
	t.Helper()
	var list []payport.Event
	update(t, s, func(tx payport.Tx) error {
		var err error
		list, err = tx.ClaimEvents(ctx, now, leaseUntil, limit)
		return err
	})
	return list
}

// webhookIDs lists the webhook ids of es, in order.
func webhookIDs(es []payport.Event) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.WebhookID)
	}
	return out
}

// recordAttempt runs RecordAttempt in a transaction and returns a with its id.
func recordAttempt(t *testing.T, s payport.Store, a payport.Attempt, state string, next int64) payport.Attempt {
	t.Helper()
	update(t, s, func(tx payport.Tx) error { return tx.RecordAttempt(ctx, &a, state, next) })
	if a.ID == 0 {
		t.Fatalf("RecordAttempt did not set the attempt id")
	}
	return a
}

// rereadEvent returns the merchant's event with its history as stored now,
// an empty history as nil so engines may return either.
func rereadEvent(t *testing.T, s payport.Store, merchantID, id int64) payport.Event {
	t.Helper()
	e, err := s.EventByID(ctx, merchantID, id)
	if err != nil {
		t.Fatalf("event %d: %v", id, err)
	}
	return normalHistory(e)
}

func normalHistory(e payport.Event) payport.Event {
	if len(e.History) == 0 {
		e.History = nil
	}
	return e
}

func testEventClaimLeases(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	delivered := sampleEvent(m.ID, "delivered", 0)
	delivered.State = payport.EventDelivered
	failed := sampleEvent(m.ID, "failed", 0)
	failed.State = payport.EventFailed
	es := insertEvents(t, s,
		sampleEvent(m.ID, "e100", 100),
		sampleEvent(m.ID, "e50", 50),
		sampleEvent(m.ID, "e200", 200), // not yet due at 150
		delivered, failed,
		sampleEvent(m.ID, "e100b", 100), // same time as e100, inserted after
	)
	got := claim(t, s, 150, 180, 10)
	wantEqual(t, "first claim", webhookIDs(got), []string{"e50", "e100", "e100b"})
	for i := range got {
		got[i] = normalHistory(got[i])
	}
	wantEqual(t, "claimed rows", got, []payport.Event{es[1], es[0], es[5]})

	wantEqual(t, "claim under a live lease", webhookIDs(claim(t, s, 160, 200, 10)), []string{})
	wantEqual(t, "claim after the lease, limit 1", webhookIDs(claim(t, s, 181, 300, 1)), []string{"e50"})
	wantEqual(t, "claim at 250", webhookIDs(claim(t, s, 250, 400, 10)), []string{"e100", "e100b", "e200"})
	wantEqual(t, "all leased", webhookIDs(claim(t, s, 299, 500, 10)), []string{})
	wantEqual(t, "e50's lease ran out", webhookIDs(claim(t, s, 301, 500, 10)), []string{"e50"})
}

func testEventRecordAttempt(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	e := insertEvents(t, s, sampleEvent(m.ID, "ev", 100))[0]
	if got := claim(t, s, 100, 10_000, 10); len(got) != 1 {
		t.Fatalf("claimed %d events", len(got))
	}
	a1 := recordAttempt(t, s, payport.Attempt{EventID: e.ID, AttemptedAt: 100, DurationMS: 1234, HTTPStatus: 503}, payport.EventPending, 160)
	want := e
	want.Attempts, want.NextAttemptAt, want.History = 1, 160, []payport.Attempt{a1}
	wantEqual(t, "after one attempt", rereadEvent(t, s, m.ID, e.ID), want)
	// The attempt ended the lease: the event is claimed again when due.
	wantEqual(t, "not due yet", webhookIDs(claim(t, s, 159, 10_000, 10)), []string{})
	wantEqual(t, "claimed again", webhookIDs(claim(t, s, 160, 10_000, 10)), []string{"ev"})

	a2 := recordAttempt(t, s, payport.Attempt{EventID: e.ID, AttemptedAt: 160, DurationMS: 30_000, Error: "dial tcp: connection refused"}, payport.EventPending, 280)
	a3 := recordAttempt(t, s, payport.Attempt{EventID: e.ID, AttemptedAt: 280, DurationMS: 7, HTTPStatus: 200}, payport.EventDelivered, 0)
	if a1.ID == a2.ID || a2.ID == a3.ID {
		t.Fatalf("attempt ids not distinct: %d %d %d", a1.ID, a2.ID, a3.ID)
	}
	want.State, want.Attempts, want.NextAttemptAt, want.History = payport.EventDelivered, 3, 0, []payport.Attempt{a1, a2, a3}
	wantEqual(t, "delivered after three attempts", rereadEvent(t, s, m.ID, e.ID), want)
	wantEqual(t, "a delivered event is not claimed", webhookIDs(claim(t, s, 10_000, 20_000, 10)), []string{})

	err := s.Update(ctx, func(tx payport.Tx) error {
		return tx.RecordAttempt(ctx, &payport.Attempt{EventID: e.ID + 1000, AttemptedAt: 1}, payport.EventFailed, 0)
	})
	wantKind(t, err, payport.KindNotFound, "attempt of an unknown event")
	wantEqual(t, "after the refused attempt", rereadEvent(t, s, m.ID, e.ID), want)
}

func testEventRedeliver(t *testing.T, s payport.Store) {
	m, other := newMerchant(t, s), newMerchant(t, s)
	e := insertEvents(t, s, sampleEvent(m.ID, "ev", 100))[0]
	a1 := recordAttempt(t, s, payport.Attempt{EventID: e.ID, AttemptedAt: 100, HTTPStatus: 500}, payport.EventPending, 160)
	a2 := recordAttempt(t, s, payport.Attempt{EventID: e.ID, AttemptedAt: 160, HTTPStatus: 500}, payport.EventFailed, 0)
	for _, c := range []struct {
		what         string
		merchant, id int64
	}{
		{"another merchant's event", other.ID, e.ID},
		{"unknown event", m.ID, e.ID + 1000},
	} {
		err := s.Update(ctx, func(tx payport.Tx) error { return tx.RedeliverEvent(ctx, c.merchant, c.id, 500) })
		wantKind(t, err, payport.KindNotFound, "redeliver "+c.what)
	}
	wantEqual(t, "failed event not claimed", webhookIDs(claim(t, s, 500, 600, 10)), []string{})

	update(t, s, func(tx payport.Tx) error { return tx.RedeliverEvent(ctx, m.ID, e.ID, 500) })
	want := e
	want.State, want.Attempts, want.NextAttemptAt, want.History = payport.EventPending, 0, 500, []payport.Attempt{a1, a2}
	wantEqual(t, "redelivered", rereadEvent(t, s, m.ID, e.ID), want)
	wantEqual(t, "not due before now", webhookIDs(claim(t, s, 499, 600, 10)), []string{})
	wantEqual(t, "claimed after redelivery", webhookIDs(claim(t, s, 500, 10_000, 10)), []string{"ev"})
	// Redelivering a leased event ends the lease.
	update(t, s, func(tx payport.Tx) error { return tx.RedeliverEvent(ctx, m.ID, e.ID, 600) })
	wantEqual(t, "claimed after a second redelivery", webhookIDs(claim(t, s, 600, 10_000, 10)), []string{"ev"})
}

func testEventList(t *testing.T, s payport.Store) {
	a, b := newMerchant(t, s), newMerchant(t, s)
	es := insertEvents(t, s,
		sampleEvent(a.ID, "a1", 10),
		sampleEvent(b.ID, "b1", 10),
		sampleEvent(a.ID, "a2", 10),
		sampleEvent(a.ID, "a3", 10),
	)
	a1, b1, a2, a3 := es[0], es[1], es[2], es[3]
	x := recordAttempt(t, s, payport.Attempt{EventID: a1.ID, AttemptedAt: 10, DurationMS: 5, HTTPStatus: 500}, payport.EventPending, 70)
	y := recordAttempt(t, s, payport.Attempt{EventID: a3.ID, AttemptedAt: 11, DurationMS: 6, Error: "timeout"}, payport.EventPending, 71)
	z := recordAttempt(t, s, payport.Attempt{EventID: a1.ID, AttemptedAt: 70, DurationMS: 7, HTTPStatus: 204}, payport.EventDelivered, 0)
	a1.State, a1.Attempts, a1.NextAttemptAt, a1.History = payport.EventDelivered, 2, 0, []payport.Attempt{x, z}
	a3.Attempts, a3.NextAttemptAt, a3.History = 1, 71, []payport.Attempt{y}

	list := func(merchantID int64, limit int) []payport.Event {
		t.Helper()
		got, err := s.EventsByMerchant(ctx, merchantID, limit)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			got[i] = normalHistory(got[i])
		}
		return got
	}
	wantEqual(t, "a's events", list(a.ID, 10), []payport.Event{a3, a2, a1})
	wantEqual(t, "a's events, limit 2", list(a.ID, 2), []payport.Event{a3, a2})
	wantEqual(t, "b's events", list(b.ID, 10), []payport.Event{b1})
	if got := list(newMerchant(t, s).ID, 10); len(got) != 0 {
		t.Fatalf("events of a merchant without any: %+v", got)
	}

	wantEqual(t, "event by id", rereadEvent(t, s, a.ID, a1.ID), a1)
	wantEqual(t, "event without attempts", rereadEvent(t, s, b.ID, b1.ID), b1)
	var inTx payport.Event
	update(t, s, func(tx payport.Tx) error {
		var err error
		inTx, err = tx.EventByID(ctx, a.ID, a3.ID)
		return err
	})
	wantEqual(t, "event by id in a transaction", inTx, a3)
	_, err := s.EventByID(ctx, b.ID, a1.ID)
	wantKind(t, err, payport.KindNotFound, "another merchant's event")
	_, err = s.EventByID(ctx, a.ID, a3.ID+1000)
	wantKind(t, err, payport.KindNotFound, "unknown event")
}

func testOutboxDepth(t *testing.T, s payport.Store) {
	a, b := newMerchant(t, s), newMerchant(t, s)
	n, err := s.OutboxDepth(ctx)
	if err != nil || n != 0 {
		t.Fatalf("empty outbox depth: %d %v", n, err)
	}
	for i, m := range []payport.Merchant{a, a, b} {
		e := payport.Event{WebhookID: fmt.Sprintf("depth-%d", i), MerchantID: m.ID, URL: "http://h.test/", Type: "paid", Status: "paid", CreatedAt: 1, State: payport.EventPending}
		update(t, s, func(tx payport.Tx) error { return tx.InsertEvent(ctx, &e) })
		if i == 0 {
			update(t, s, func(tx payport.Tx) error {
				return tx.RecordAttempt(ctx, &payport.Attempt{EventID: e.ID, AttemptedAt: 2, HTTPStatus: 200}, payport.EventDelivered, 0)
			})
		}
	}
	if n, err := s.OutboxDepth(ctx); err != nil || n != 2 {
		t.Fatalf("outbox depth: %d %v, want 2 pending across merchants", n, err)
	}
}
