package service_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/payport/payport"
	"github.com/payport/payport/gateway/sandbox"
	"github.com/payport/payport/service"
	"github.com/payport/payport/sqlite"
)

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

// BenchmarkRunDueSchedules measures how long 10,000 schedules due at the
// same instant take to execute on SQLite (target: within 3 s), each
// charged, recorded and given its webhook row.
func BenchmarkRunDueSchedules(b *testing.B) {
	const n = 10000
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), fmt.Sprintf("b%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		if err := db.Migrate(ctx); err != nil {
			b.Fatal(err)
		}
		clock := &fixedClock{t: time.Unix(1_790_000_000, 0)}
		svc, err := service.New(db, service.Config{Gateway: sandbox.New(), Clock: clock, SecretKey: bytes.Repeat([]byte("k"), 32)})
		if err != nil {
			b.Fatal(err)
		}
		cred, err := svc.CreateMerchant(ctx, "bench")
		if err != nil {
			b.Fatal(err)
		}
		m, _ := svc.MerchantByIMPKey(ctx, cred.IMPKey)
		url := "http://127.0.0.1:1/hooks"
		if _, err := svc.UpdateMerchantSettings(ctx, cred.IMPKey, service.MerchantSettings{NotificationURL: &url}); err != nil {
			b.Fatal(err)
		}
		if _, err := svc.IssueCustomer(ctx, m, "cust", service.CustomerInput{Card: service.CardInput{Card: payport.Card{Number: "4242-4242-4242-4242", Expiry: "2030-12"}}}); err != nil {
			b.Fatal(err)
		}
		at := clock.t.Unix() + 60
		for batch := 0; batch < n/1000; batch++ {
			items := make([]service.ScheduleItem, 1000)
			for j := range items {
				items[j] = service.ScheduleItem{ChargeInput: service.ChargeInput{Order: service.Order{MerchantUID: fmt.Sprintf("s-%d", batch*1000+j), Amount: "1000"}}, ScheduleAt: &at}
			}
			if _, err := svc.Schedule(ctx, m, service.ScheduleInput{CustomerUID: "cust", Schedules: items}); err != nil {
				b.Fatal(err)
			}
		}
		clock.t = clock.t.Add(time.Minute)
		b.StartTimer()
		start := time.Now()
		total := 0
		for {
			ran, err := svc.RunDueSchedules(ctx, 200)
			if err != nil {
				b.Fatal(err)
			}
			total += ran
			if ran == 0 {
				break
			}
		}
		took := time.Since(start)
		b.StopTimer()
		if total != n {
			b.Fatalf("ran %d of %d", total, n)
		}
		b.ReportMetric(took.Seconds(), "s/10k")
		b.ReportMetric(float64(n)/took.Seconds(), "schedules/s")
		db.Close()
	}
}
