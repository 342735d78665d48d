package storetest

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/payport/payport"
)

// insertPayment inserts p in its own transaction and returns it with its ids set.
func insertPayment(t *testing.T, s payport.Store, p payport.Payment) payport.Payment {
	t.Helper()
	update(t, s, func(tx payport.Tx) error { return tx.InsertPayment(ctx, &p) })
	if p.ID == 0 {
		t.Fatalf("InsertPayment did not set the id")
	}
	return p
}

// reread returns the merchant's payment as stored now.
func reread(t *testing.T, s payport.Store, merchantID int64, impUID string) payport.Payment {
	t.Helper()
	got, err := s.PaymentByIMPUID(ctx, merchantID, impUID)
	if err != nil {
		t.Fatalf("payment %s: %v", impUID, err)
	}
	return got
}

func testPaymentNoticeURL(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	p := samplePayment(m.ID, "imp_300000000001", "order-n")
	p.NoticeURL = "https://shop.test/hooks/payport?x=1"
	p = insertPayment(t, s, p)
	wantEqual(t, "payment with notice_url", reread(t, s, m.ID, p.IMPUID), p)
	plain := insertPayment(t, s, samplePayment(m.ID, "imp_300000000002", "order-n"))
	if got := reread(t, s, m.ID, plain.IMPUID); got.NoticeURL != "" {
		t.Fatalf("notice_url of a payment without one = %q", got.NoticeURL)
	}
}

func testPaymentUpdateRoundTrip(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	p := insertPayment(t, s, samplePayment(m.ID, "imp_300000000011", "order-u"))
	// Every mutable field gets a new value (zero values included, so a
	// field that was set can be cleared).
	want := payport.Payment{
		ID: p.ID, MerchantID: p.MerchantID, IMPUID: p.IMPUID, MerchantUID: p.MerchantUID,
		PayMethod: "vbank", Channel: "mobile", PGProvider: "html5_inicis", EmbPGProvider: "",
		PGTID: "tid-2", PGID: "INIpayTest", Escrow: false, ApplyNum: "87654321", BankCode: "088",
		BankName: "신한은행", CardCode: "381", CardName: "KB국민카드", CardQuota: 0,
		CardNumber: "555555******4444", CardType: "0", VBankCode: "004", VBankName: "KB국민은행",
		VBankNum: "12345678901234", VBankHolder: "홍길동", VBankDate: 1_800_000_000, VBankIssuedAt: 1_700_000_500,
		Name: "데스크톱", Amount: 2000, CancelAmount: 2000, Currency: "KRW", BuyerName: "김철수",
		BuyerEmail: "c@d.test", BuyerTel: "010-9876-5432", BuyerAddr: "부산", BuyerPostcode: "54321",
		CustomData: `{"b":2}`, UserAgent: "ua2", Status: payport.StatusCancelled, StartedAt: 1_700_000_100,
		PaidAt: 1_700_000_110, FailedAt: 1_700_000_120, CancelledAt: 1_700_000_130, FailReason: "fail",
		CancelReason: "all", ReceiptURL: "http://r/2", CashReceiptIssued: false, CustomerUID: "cust-2",
		CustomerUIDUsage: payport.UsageScheduled, NoticeURL: "https://n.test/2", UpdatedAt: 1_700_000_140,
		CancelHistory: p.CancelHistory,
	}
	// The immutable fields and the cancel history are not written.
	arg := want
	arg.IMPUID, arg.MerchantUID = "imp_399999999999", "other-order"
	arg.CancelHistory = append([]payport.CancelEntry{}, p.CancelHistory...)
	arg.CancelHistory = append(arg.CancelHistory, payport.CancelEntry{PaymentID: p.ID, Amount: 1, CancelledAt: 1})
	update(t, s, func(tx payport.Tx) error { return tx.UpdatePayment(ctx, arg) })
	wantEqual(t, "after update", reread(t, s, m.ID, p.IMPUID), want)
	_, err := s.PaymentByIMPUID(ctx, m.ID, arg.IMPUID)
	wantKind(t, err, payport.KindNotFound, "imp_uid changed by UpdatePayment")

	// Inside the transaction the change is visible to LockPayment.
	want.CancelAmount, want.Status, want.UpdatedAt = 1500, payport.StatusPaid, 1_700_000_150
	var locked payport.Payment
	update(t, s, func(tx payport.Tx) error {
		if err := tx.UpdatePayment(ctx, want); err != nil {
			return err
		}
		var err error
		locked, err = tx.LockPayment(ctx, m.ID, p.IMPUID)
		return err
	})
	wantEqual(t, "locked after update", locked, want)
	wantEqual(t, "after second update", reread(t, s, m.ID, p.IMPUID), want)
}

func testPaymentUpdateUnknown(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	p := samplePayment(m.ID, "imp_300000000021", "order-x")
	p.ID = 424242
	err := s.Update(ctx, func(tx payport.Tx) error { return tx.UpdatePayment(ctx, p) })
	wantKind(t, err, payport.KindNotFound, "update unknown payment")
}

func testPaymentUpdateRefusesOvercancel(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	p := insertPayment(t, s, samplePayment(m.ID, "imp_300000000031", "order-o"))
	for _, bad := range []int64{p.Amount + 1, -1} {
		q := p
		q.CancelAmount, q.Status, q.UpdatedAt = bad, payport.StatusCancelled, p.UpdatedAt+1
		err := s.Update(ctx, func(tx payport.Tx) error { return tx.UpdatePayment(ctx, q) })
		wantKind(t, err, payport.KindInternal, "cancel_amount out of range")
		wantEqual(t, "after refused update", reread(t, s, m.ID, p.IMPUID), p)
	}
	// The bound itself is allowed.
	p.CancelAmount = p.Amount
	update(t, s, func(tx payport.Tx) error { return tx.UpdatePayment(ctx, p) })
	wantEqual(t, "fully cancelled", reread(t, s, m.ID, p.IMPUID), p)
}

func testPaymentInsertCancel(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	p := insertPayment(t, s, samplePayment(m.ID, "imp_300000000041", "order-c"))
	c3 := payport.CancelEntry{PaymentID: p.ID, PGTID: "c3", Amount: 50, CancelledAt: 1_700_000_050, Reason: "three", ReceiptURL: "http://r/c3"}
	c4 := payport.CancelEntry{PaymentID: p.ID, PGTID: "c4", Amount: 70, CancelledAt: 1_700_000_050, Reason: "four"}
	update(t, s, func(tx payport.Tx) error { return tx.InsertCancel(ctx, &c3) })
	update(t, s, func(tx payport.Tx) error { return tx.InsertCancel(ctx, &c4) })
	if c3.ID == 0 || c4.ID == 0 || c3.ID == c4.ID {
		t.Fatalf("cancel ids not set: %d %d", c3.ID, c4.ID)
	}
	got := reread(t, s, m.ID, p.IMPUID)
	wantEqual(t, "cancel history", got.CancelHistory, append(p.CancelHistory, c3, c4))
	other := insertPayment(t, s, samplePayment(m.ID, "imp_300000000042", "order-c"))
	wantEqual(t, "other payment's history", reread(t, s, m.ID, other.IMPUID).CancelHistory, other.CancelHistory)
}

func testPaymentLockAndRefundConcurrent(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	p := insertPayment(t, s, payport.Payment{MerchantID: m.ID, IMPUID: "imp_300000000051", MerchantUID: "order-r",
		Amount: 1000, Currency: "KRW", Status: payport.StatusPaid, PaidAt: 1, UpdatedAt: 1,
		CancelHistory: []payport.CancelEntry{}})
	var locked payport.Payment
	update(t, s, func(tx payport.Tx) error {
		var err error
		locked, err = tx.LockPayment(ctx, m.ID, p.IMPUID)
		return err
	})
	wantEqual(t, "locked", locked, p)
	other := newMerchant(t, s)
	for _, c := range []struct {
		what     string
		merchant int64
		impUID   string
	}{
		{"lock unknown imp_uid", m.ID, "imp_399999999998"},
		{"lock another merchant's imp_uid", other.ID, p.IMPUID},
	} {
		err := s.Update(ctx, func(tx payport.Tx) error {
			_, err := tx.LockPayment(ctx, c.merchant, c.impUID)
			return err
		})
		wantKind(t, err, payport.KindNotFound, c.what)
	}

	var refunds atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			refunded := false
			err := s.Update(ctx, func(tx payport.Tx) error {
				refunded = false
				cur, err := tx.LockPayment(ctx, m.ID, p.IMPUID)
				if err != nil {
					return err
				}
				if cur.Cancellable() < 300 {
					return nil
				}
				cur.CancelAmount += 300
				cur.UpdatedAt = int64(100 + i)
				if err := tx.UpdatePayment(ctx, cur); err != nil {
					return err
				}
				c := payport.CancelEntry{PaymentID: cur.ID, Amount: 300, CancelledAt: int64(100 + i), Reason: "part"}
				if err := tx.InsertCancel(ctx, &c); err != nil {
					return err
				}
				refunded = true
				return nil
			})
			switch {
			case err != nil:
				t.Errorf("refund %d: %v", i, err)
			case refunded:
				refunds.Add(1)
			}
		}(i)
	}
	wg.Wait()
	got := reread(t, s, m.ID, p.IMPUID)
	var sum int64
	for _, c := range got.CancelHistory {
		sum += c.Amount
	}
	if refunds.Load() != 3 || got.CancelAmount != 900 || sum != 900 || len(got.CancelHistory) != 3 {
		t.Fatalf("%d refunds succeeded, cancel_amount %d, history sum %d in %d entries; want 3, 900, 900, 3",
			refunds.Load(), got.CancelAmount, sum, len(got.CancelHistory))
	}
}

func testBalanceHistory(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	p := insertPayment(t, s, samplePayment(m.ID, "imp_300000000061", "order-b"))
	q := insertPayment(t, s, samplePayment(m.ID, "imp_300000000062", "order-b"))
	list, err := s.BalanceHistory(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "no balance entries", list, []payport.BalanceEntry{})
	entries := []payport.BalanceEntry{
		{PaymentID: p.ID, CreatedAt: 1_700_000_010, Primary: payport.BalancePart{Amount: 700, TaxFree: 100},
			Secondary: payport.BalancePart{Amount: 200, TaxFree: 20}, Discount: payport.BalancePart{Amount: 150, TaxFree: 5},
			CashReceipt: payport.BalancePart{Amount: 50, TaxFree: 1}},
		{PaymentID: p.ID, CreatedAt: 1_700_000_030, Primary: payport.BalancePart{Amount: 400, TaxFree: 100},
			Secondary: payport.BalancePart{Amount: 200, TaxFree: 20}, Discount: payport.BalancePart{Amount: 150, TaxFree: 5}},
		{PaymentID: p.ID, CreatedAt: 1_700_000_040, Discount: payport.BalancePart{Amount: 150, TaxFree: 5}},
	}
	update(t, s, func(tx payport.Tx) error {
		for i := range entries[:2] {
			if err := tx.InsertBalance(ctx, &entries[i]); err != nil {
				return err
			}
		}
		return nil
	})
	update(t, s, func(tx payport.Tx) error { return tx.InsertBalance(ctx, &entries[2]) })
	for i, e := range entries {
		if e.ID == 0 || (i > 0 && e.ID == entries[i-1].ID) {
			t.Fatalf("balance ids not set: %+v", entries)
		}
	}
	list, err = s.BalanceHistory(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "balance history", list, entries)
	update(t, s, func(tx payport.Tx) error {
		var err error
		list, err = tx.BalanceHistory(ctx, p.ID)
		return err
	})
	wantEqual(t, "balance history in a transaction", list, entries)
	list, err = s.BalanceHistory(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "other payment's balance history", list, []payport.BalanceEntry{})
}

// sampleCustomer is a billing key with every field set.
func sampleCustomer(merchantID int64, customerUID string) payport.Customer {
	return payport.Customer{
		MerchantID: merchantID, CustomerUID: customerUID, PGProvider: "nice", PGID: "nictest04m",
		CardName: "신한카드", CardCode: "366", CardNumber: "424242******4242", CardType: "0",
		GatewayToken: "gw_tok_1", CustomerName: "홍길동", CustomerTel: "010-1234-5678",
		CustomerEmail: "a@b.test", CustomerAddr: "서울", CustomerPostcode: "12345",
		Inserted: 1_700_000_000, Updated: 1_700_000_000,
	}
}

func testCustomerRoundTrip(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	_, err := s.CustomerByUID(ctx, m.ID, "cust-1")
	wantKind(t, err, payport.KindNotFound, "no customer yet")
	c := sampleCustomer(m.ID, "cust-1")
	update(t, s, func(tx payport.Tx) error { return tx.UpsertCustomer(ctx, c) })
	got, err := s.CustomerByUID(ctx, m.ID, c.CustomerUID)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "customer", got, c)
	update(t, s, func(tx payport.Tx) error {
		var err error
		got, err = tx.CustomerByUID(ctx, m.ID, c.CustomerUID)
		return err
	})
	wantEqual(t, "customer in a transaction", got, c)
}

func testCustomerUpsertKeepsInserted(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	first := sampleCustomer(m.ID, "cust-1")
	update(t, s, func(tx payport.Tx) error { return tx.UpsertCustomer(ctx, first) })
	second := payport.Customer{
		MerchantID: m.ID, CustomerUID: "cust-1", PGProvider: "html5_inicis", PGID: "INIpayTest",
		CardName: "KB국민카드", CardCode: "381", CardNumber: "555555******4444", CardType: "1",
		GatewayToken: "gw_tok_2", CustomerName: "", CustomerTel: "010-0000-0000",
		CustomerEmail: "", CustomerAddr: "부산", CustomerPostcode: "",
		Inserted: 1_700_009_999, Updated: 1_700_005_000,
	}
	update(t, s, func(tx payport.Tx) error { return tx.UpsertCustomer(ctx, second) })
	want := second
	want.Inserted = first.Inserted
	got, err := s.CustomerByUID(ctx, m.ID, "cust-1")
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "replaced customer", got, want)
}

func testCustomerIsolation(t *testing.T, s payport.Store) {
	a, b := newMerchant(t, s), newMerchant(t, s)
	ca := sampleCustomer(a.ID, "shared")
	update(t, s, func(tx payport.Tx) error { return tx.UpsertCustomer(ctx, ca) })
	_, err := s.CustomerByUID(ctx, b.ID, "shared")
	wantKind(t, err, payport.KindNotFound, "other merchant's customer_uid")
	err = s.Update(ctx, func(tx payport.Tx) error { return tx.DeleteCustomer(ctx, b.ID, "shared") })
	wantKind(t, err, payport.KindNotFound, "deleting another merchant's customer_uid")

	cb := sampleCustomer(b.ID, "shared")
	cb.GatewayToken, cb.CardNumber, cb.Inserted, cb.Updated = "gw_tok_b", "555555******4444", 5, 6
	update(t, s, func(tx payport.Tx) error { return tx.UpsertCustomer(ctx, cb) })
	for _, want := range []payport.Customer{ca, cb} {
		got, err := s.CustomerByUID(ctx, want.MerchantID, "shared")
		if err != nil {
			t.Fatal(err)
		}
		wantEqual(t, "customer of each merchant", got, want)
	}
	update(t, s, func(tx payport.Tx) error { return tx.DeleteCustomer(ctx, b.ID, "shared") })
	got, err := s.CustomerByUID(ctx, a.ID, "shared")
	if err != nil {
		t.Fatalf("deleting b's key removed a's: %v", err)
	}
	wantEqual(t, "a's customer after b's delete", got, ca)
}

func testCustomerDelete(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	c := sampleCustomer(m.ID, "cust-1")
	keep := sampleCustomer(m.ID, "cust-2")
	update(t, s, func(tx payport.Tx) error {
		if err := tx.UpsertCustomer(ctx, c); err != nil {
			return err
		}
		return tx.UpsertCustomer(ctx, keep)
	})
	update(t, s, func(tx payport.Tx) error { return tx.DeleteCustomer(ctx, m.ID, "cust-1") })
	_, err := s.CustomerByUID(ctx, m.ID, "cust-1")
	wantKind(t, err, payport.KindNotFound, "lookup after delete")
	err = s.Update(ctx, func(tx payport.Tx) error { return tx.DeleteCustomer(ctx, m.ID, "cust-1") })
	wantKind(t, err, payport.KindNotFound, "delete twice")
	got, err := s.CustomerByUID(ctx, m.ID, "cust-2")
	if err != nil {
		t.Fatalf("delete removed another key: %v", err)
	}
	wantEqual(t, "other key", got, keep)
	// A deleted key can be issued again, as new.
	c.Inserted, c.Updated = 1_800_000_000, 1_800_000_000
	update(t, s, func(tx payport.Tx) error { return tx.UpsertCustomer(ctx, c) })
	got, err = s.CustomerByUID(ctx, m.ID, "cust-1")
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "re-issued key", got, c)
}
