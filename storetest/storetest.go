package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/payport/payport"
)

// Opener returns a fresh, migrated, empty store. The suite closes it.
type Opener func(t *testing.T) payport.Store

// Run runs every conformance case against stores made by open.
func Run(t *testing.T, open Opener) {
	cases := []struct {
		name string
		fn   func(*testing.T, payport.Store)
	}{
		{"Merchant_RoundTripAndLookups", testMerchantRoundTrip},
		{"Merchant_DuplicateIMPKeyIsConflict", testMerchantDuplicateKey},
		{"Merchant_UpdateUnknownIsNotFound", testMerchantUpdateUnknown},
		{"APIKey_LookupAndConflict", testAPIKey},
		{"PGSetting_AddListRemove", testPGSettings},
		{"Token_RoundTripExtendDelete", testTokenRoundTrip},
		{"Token_UseIsCompareAndSet", testTokenUseConcurrent},
		{"Token_RevokeFamily", testTokenRevokeFamily},
		{"Update_RollsBackOnError", testUpdateRollsBack},
		{"Update_ReturnsErrorUnchanged", testUpdateErrorUnchanged},
		{"MerchantUID_ExclusiveClaimUnderConcurrency", testMerchantUIDClaimConcurrent},
		{"Payment_RoundTripWithCancelHistory", testPaymentRoundTrip},
		{"Payment_IsolationBetweenMerchants", testPaymentIsolation},
		{"Payment_DuplicateIMPUIDIsConflict", testPaymentDuplicateIMPUID},
		{"Payment_FindSortsAndFilters", testFindPayment},
		{"Event_Insert", testEventInsert},
		{"Event_OutboxDepth", testOutboxDepth},
		{"Payment_NoticeURLRoundTrip", testPaymentNoticeURL},
		{"Payment_UpdateRoundTrip", testPaymentUpdateRoundTrip},
		{"Payment_UpdateUnknownIsNotFound", testPaymentUpdateUnknown},
		{"Payment_UpdateRefusesCancelAboveAmount", testPaymentUpdateRefusesOvercancel},
		{"Payment_InsertCancelAppendsToHistory", testPaymentInsertCancel},
		{"Payment_LockSerialisesRefunds", testPaymentLockAndRefundConcurrent},
		{"Balance_HistoryOrderAndEmpty", testBalanceHistory},
		{"Customer_RoundTrip", testCustomerRoundTrip},
		{"Customer_UpsertReplacesKeepsInserted", testCustomerUpsertKeepsInserted},
		{"Customer_IsolationBetweenMerchants", testCustomerIsolation},
		{"Customer_DeleteThenNotFound", testCustomerDelete},
		{"Schedule_RoundTrip", testScheduleRoundTrip},
		{"Schedule_DuplicateMerchantUIDAndIsolation", testScheduleDuplicateAndIsolation},
		{"Schedule_ListWindowStatusOrderPaging", testScheduleList},
		{"Schedule_DueHonoursClockOffset", testScheduleDue},
		{"Schedule_FinishClaimsOnce", testScheduleFinish},
		{"Schedule_Revoke", testScheduleRevoke},
		{"Schedule_FinishRacesRevoke", testScheduleFinishRacesRevoke},
		{"Schedule_SetPaymentStatus", testSchedulePaymentStatus},
		{"Event_ClaimLeases", testEventClaimLeases},
		{"Event_RecordAttempt", testEventRecordAttempt},
		{"Event_Redeliver", testEventRedeliver},
		{"Event_ListAndByID", testEventList},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			t.Cleanup(func() { _ = s.Close() })
			c.fn(t, s)
		})
	}
}

var ctx = context.Background()

// update runs fn in a transaction and fails the test on error.
func update(t *testing.T, s payport.Store, fn func(payport.Tx) error) {
	t.Helper()
	if err := s.Update(ctx, fn); err != nil {
		t.Fatalf("update: %v", err)
	}
}

var merchantSeq atomic.Int64

// newMerchant creates a merchant with distinct keys.
func newMerchant(t *testing.T, s payport.Store) payport.Merchant {
	t.Helper()
	n := merchantSeq.Add(1)
	m := payport.Merchant{
		Name: fmt.Sprintf("shop %d", n), IMPKey: fmt.Sprintf("key%013d", n), IMPSecretHash: []byte{1, 2, 3, byte(n)},
		WebhookContentType: payport.WebhookJSON, WebhookMaxAttempts: payport.DefaultWebhookMaxAttempts,
		WebhookSecretID: fmt.Sprintf("whsec-id-%d", n), CreatedAt: 1_700_000_000,
	}
	update(t, s, func(tx payport.Tx) error { return tx.CreateMerchant(ctx, &m) })
	if m.ID == 0 {
		t.Fatalf("CreateMerchant did not set the id")
	}
	return m
}

func wantKind(t *testing.T, err error, kind payport.ErrorKind, what string) {
	t.Helper()
	if err == nil || payport.KindOf(err) != kind {
		t.Fatalf("%s: err = %v, want kind %d", what, err, kind)
	}
}

func wantEqual[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

func testMerchantRoundTrip(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	for what, get := range map[string]func() (payport.Merchant, error){
		"by id":      func() (payport.Merchant, error) { return s.MerchantByID(ctx, m.ID) },
		"by imp_key": func() (payport.Merchant, error) { return s.MerchantByIMPKey(ctx, m.IMPKey) },
	} {
		got, err := get()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		wantEqual(t, what, got, m)
	}
	m.NotificationURL, m.WebhookContentType, m.ScheduleListPaged, m.ClockOffset, m.WebhookMaxAttempts = "https://x.test/h", payport.WebhookForm, true, 3600, 3
	update(t, s, func(tx payport.Tx) error { return tx.UpdateMerchant(ctx, m) })
	got, err := s.MerchantByID(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "after update", got, m)
	other := newMerchant(t, s)
	list, err := s.Merchants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "merchants", list, []payport.Merchant{m, other})
	_, err = s.MerchantByIMPKey(ctx, "nope")
	wantKind(t, err, payport.KindNotFound, "unknown imp_key")
	_, err = s.MerchantByID(ctx, 999999)
	wantKind(t, err, payport.KindNotFound, "unknown id")
	update(t, s, func(tx payport.Tx) error {
		locked, err := tx.LockMerchant(ctx, m.ID)
		wantEqual(t, "locked", locked, m)
		return err
	})
}

func testMerchantDuplicateKey(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	dup := m
	dup.ID = 0
	err := s.Update(ctx, func(tx payport.Tx) error { return tx.CreateMerchant(ctx, &dup) })
	wantKind(t, err, payport.KindConflict, "duplicate imp_key")
}

func testMerchantUpdateUnknown(t *testing.T, s payport.Store) {
	err := s.Update(ctx, func(tx payport.Tx) error {
		return tx.UpdateMerchant(ctx, payport.Merchant{ID: 424242, WebhookContentType: "json", WebhookMaxAttempts: 1})
	})
	wantKind(t, err, payport.KindNotFound, "update unknown merchant")
}

func testAPIKey(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	k := payport.APIKey{Hash: []byte("hash-of-api-key"), MerchantID: m.ID, CreatedAt: 1}
	update(t, s, func(tx payport.Tx) error { return tx.AddAPIKey(ctx, k) })
	got, err := s.MerchantByAPIKeyHash(ctx, k.Hash)
	if err != nil || got.ID != m.ID {
		t.Fatalf("by api key: %v %v", got.ID, err)
	}
	_, err = s.MerchantByAPIKeyHash(ctx, []byte("other"))
	wantKind(t, err, payport.KindNotFound, "unknown api key")
	err = s.Update(ctx, func(tx payport.Tx) error { return tx.AddAPIKey(ctx, k) })
	wantKind(t, err, payport.KindConflict, "duplicate api key")
}

func testPGSettings(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	a := payport.PGSetting{MerchantID: m.ID, Provider: "nice", PGID: "nictest04m", NonAuth: true, VBank: true, CreatedAt: 1}
	b := payport.PGSetting{MerchantID: m.ID, Provider: "html5_inicis", PGID: "INIpayTest", NonAuth: true, APIKeyHash: []byte{9, 9}, CreatedAt: 2}
	update(t, s, func(tx payport.Tx) error {
		if err := tx.AddPGSetting(ctx, &a); err != nil {
			return err
		}
		return tx.AddPGSetting(ctx, &b)
	})
	if a.ID == 0 || b.ID == 0 {
		t.Fatalf("ids not set: %d %d", a.ID, b.ID)
	}
	list, err := s.PGSettings(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "settings", list, []payport.PGSetting{a, b})
	dup := a
	err = s.Update(ctx, func(tx payport.Tx) error { return tx.AddPGSetting(ctx, &dup) })
	wantKind(t, err, payport.KindConflict, "duplicate pg setting")
	update(t, s, func(tx payport.Tx) error { return tx.RemovePGSetting(ctx, m.ID, "nice", "nictest04m") })
	err = s.Update(ctx, func(tx payport.Tx) error { return tx.RemovePGSetting(ctx, m.ID, "nice", "nictest04m") })
	wantKind(t, err, payport.KindNotFound, "remove twice")
	list, _ = s.PGSettings(ctx, m.ID)
	wantEqual(t, "after remove", list, []payport.PGSetting{b})
	other := newMerchant(t, s)
	list, _ = s.PGSettings(ctx, other.ID)
	wantEqual(t, "other merchant", list, []payport.PGSetting{})
}

func testTokenRoundTrip(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	_, err := s.CurrentRESTToken(ctx, m.ID)
	wantKind(t, err, payport.KindNotFound, "no token yet")
	old := payport.Token{Hash: []byte("h1"), ID: "id1", MerchantID: m.ID, Kind: payport.TokenREST, IssuedAt: 100, ExpiresAt: 1900}
	cur := payport.Token{Hash: []byte("h2"), ID: "id2", MerchantID: m.ID, Kind: payport.TokenREST, IssuedAt: 200, ExpiresAt: 2000}
	acc := payport.Token{Hash: []byte("h3"), ID: "id3", MerchantID: m.ID, Kind: payport.TokenAccess, FamilyID: "f", IssuedAt: 300, ExpiresAt: 2100}
	update(t, s, func(tx payport.Tx) error {
		for _, tok := range []payport.Token{old, cur, acc} {
			if err := tx.InsertToken(ctx, tok); err != nil {
				return err
			}
		}
		return nil
	})
	got, err := s.CurrentRESTToken(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "current", got, cur)
	got, err = s.TokenByHash(ctx, acc.Hash)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "by hash", got, acc)
	err = s.Update(ctx, func(tx payport.Tx) error { return tx.InsertToken(ctx, cur) })
	wantKind(t, err, payport.KindConflict, "duplicate token hash")
	update(t, s, func(tx payport.Tx) error { return tx.ExtendToken(ctx, cur.Hash, 2300) })
	got, _ = s.CurrentRESTToken(ctx, m.ID)
	if got.ExpiresAt != 2300 {
		t.Fatalf("extended expiry = %d", got.ExpiresAt)
	}
	err = s.Update(ctx, func(tx payport.Tx) error { return tx.ExtendToken(ctx, []byte("nope"), 1) })
	wantKind(t, err, payport.KindNotFound, "extend unknown")
	update(t, s, func(tx payport.Tx) error { return tx.DeleteRESTTokens(ctx, m.ID) })
	_, err = s.CurrentRESTToken(ctx, m.ID)
	wantKind(t, err, payport.KindNotFound, "after delete")
	if _, err := s.TokenByHash(ctx, acc.Hash); err != nil {
		t.Fatalf("DeleteRESTTokens removed a sign-in token: %v", err)
	}
}

func testTokenUseConcurrent(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	tok := payport.Token{Hash: []byte("refresh"), ID: "r", MerchantID: m.ID, Kind: payport.TokenRefresh, FamilyID: "fam", IssuedAt: 1, ExpiresAt: 99999}
	update(t, s, func(tx payport.Tx) error { return tx.InsertToken(ctx, tok) })
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.Update(ctx, func(tx payport.Tx) error {
				ok, err := tx.UseToken(ctx, tok.Hash, 5)
				if ok {
					wins.Add(1)
				}
				return err
			})
			if err != nil {
				t.Errorf("use: %v", err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("UseToken succeeded %d times, want exactly 1", wins.Load())
	}
	got, _ := s.TokenByHash(ctx, tok.Hash)
	if got.UsedAt != 5 {
		t.Fatalf("used_at = %d", got.UsedAt)
	}
}

func testTokenRevokeFamily(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	toks := []payport.Token{
		{Hash: []byte("a"), ID: "a", MerchantID: m.ID, Kind: payport.TokenAccess, FamilyID: "f1", IssuedAt: 1, ExpiresAt: 9},
		{Hash: []byte("b"), ID: "b", MerchantID: m.ID, Kind: payport.TokenRefresh, FamilyID: "f1", IssuedAt: 1, ExpiresAt: 9},
		{Hash: []byte("c"), ID: "c", MerchantID: m.ID, Kind: payport.TokenAccess, FamilyID: "f2", IssuedAt: 1, ExpiresAt: 9},
		{Hash: []byte("d"), ID: "d", MerchantID: m.ID, Kind: payport.TokenREST, IssuedAt: 1, ExpiresAt: 9},
	}
	update(t, s, func(tx payport.Tx) error {
		for _, tok := range toks {
			if err := tx.InsertToken(ctx, tok); err != nil {
				return err
			}
		}
		return tx.RevokeTokenFamily(ctx, "f1", 7)
	})
	for i, want := range []int64{7, 7, 0, 0} {
		got, err := s.TokenByHash(ctx, toks[i].Hash)
		if err != nil || got.RevokedAt != want {
			t.Fatalf("token %s: revoked_at %d (%v), want %d", toks[i].ID, got.RevokedAt, err, want)
		}
	}
	update(t, s, func(tx payport.Tx) error {
		ok, err := tx.UseToken(ctx, []byte("b"), 8)
		if ok {
			t.Errorf("a revoked token was used")
		}
		return err
	})
}

func testUpdateRollsBack(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx payport.Tx) error {
		p := samplePayment(m.ID, "imp_000000000001", "order-1")
		if err := tx.InsertPayment(ctx, &p); err != nil {
			return err
		}
		if err := tx.ClaimMerchantUID(ctx, m.ID, "order-1", true); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	_, err = s.PaymentByIMPUID(ctx, m.ID, "imp_000000000001")
	wantKind(t, err, payport.KindNotFound, "payment after rollback")
	update(t, s, func(tx payport.Tx) error { return tx.ClaimMerchantUID(ctx, m.ID, "order-1", true) })
}

func testUpdateErrorUnchanged(t *testing.T, s payport.Store) {
	want := payport.Errorf(payport.KindRefused, "refused for a reason")
	err := s.Update(ctx, func(payport.Tx) error { return want })
	if err != want { // the contract is "unchanged": the very same value
		t.Fatalf("err = %#v, want the same *Error", err)
	}
}

func testMerchantUIDClaimConcurrent(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	var wins, conflicts atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.Update(ctx, func(tx payport.Tx) error { return tx.ClaimMerchantUID(ctx, m.ID, "order-x", true) })
			switch {
			case err == nil:
				wins.Add(1)
			case payport.IsConflict(err):
				conflicts.Add(1)
			default:
				t.Errorf("claim: %v", err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 || conflicts.Load() != 19 {
		t.Fatalf("claims: %d won, %d conflicts; want 1 and 19", wins.Load(), conflicts.Load())
	}
	update(t, s, func(tx payport.Tx) error { return tx.ClaimMerchantUID(ctx, m.ID, "order-x", false) })
	other := newMerchant(t, s)
	update(t, s, func(tx payport.Tx) error { return tx.ClaimMerchantUID(ctx, other.ID, "order-x", true) })
}

// samplePayment is a payment with every field set, so a round trip shows
// that no column is lost.
func samplePayment(merchantID int64, impUID, merchantUID string) payport.Payment {
	return payport.Payment{
		MerchantID: merchantID, IMPUID: impUID, MerchantUID: merchantUID, PayMethod: "card", Channel: "pc",
		PGProvider: "nice", EmbPGProvider: "kakaopay", PGTID: "tid-1", PGID: "nictest04m", Escrow: true,
		ApplyNum: "12345678", BankCode: "004", BankName: "KB국민은행", CardCode: "366", CardName: "신한카드",
		CardQuota: 3, CardNumber: "424242******4242", CardType: "1", VBankCode: "088", VBankName: "신한은행",
		VBankNum: "56211234567890", VBankHolder: "페이포트", VBankDate: 1_700_100_000, VBankIssuedAt: 1_700_000_001,
		Name: "노트북", Amount: 1050, CancelAmount: 300, Currency: "USD", BuyerName: "홍길동",
		BuyerEmail: "a@b.test", BuyerTel: "010-1234-5678", BuyerAddr: "서울", BuyerPostcode: "12345",
		CustomData: `{"a":1}`, UserAgent: "ua", Status: payport.StatusPaid, StartedAt: 1_700_000_000,
		PaidAt: 1_700_000_010, FailedAt: 0, CancelledAt: 0, FailReason: "", CancelReason: "partial",
		ReceiptURL: "http://r/1", CashReceiptIssued: true, CustomerUID: "cust-1", CustomerUIDUsage: "payment",
		UpdatedAt: 1_700_000_020,
		CancelHistory: []payport.CancelEntry{
			{PGTID: "c1", Amount: 100, CancelledAt: 1_700_000_030, Reason: "one", ReceiptURL: "http://r/c1"},
			{PGTID: "c2", Amount: 200, CancelledAt: 1_700_000_040, Reason: "two"},
		},
	}
}

func testPaymentRoundTrip(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	p := samplePayment(m.ID, "imp_123456789012", "order-1")
	update(t, s, func(tx payport.Tx) error { return tx.InsertPayment(ctx, &p) })
	if p.ID == 0 || p.CancelHistory[0].ID == 0 || p.CancelHistory[1].PaymentID != p.ID {
		t.Fatalf("ids not set: %+v", p)
	}
	got, err := s.PaymentByIMPUID(ctx, m.ID, p.IMPUID)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "payment", got, p)
	bare := payport.Payment{MerchantID: m.ID, IMPUID: "imp_000000000002", MerchantUID: "o2", Amount: 1, Currency: "KRW", Status: payport.StatusReady}
	update(t, s, func(tx payport.Tx) error { return tx.InsertPayment(ctx, &bare) })
	got, _ = s.PaymentByIMPUID(ctx, m.ID, bare.IMPUID)
	bare.CancelHistory = []payport.CancelEntry{}
	if len(got.CancelHistory) != 0 {
		t.Fatalf("cancel history of a bare payment: %+v", got.CancelHistory)
	}
	got.CancelHistory = bare.CancelHistory
	wantEqual(t, "bare payment", got, bare)
}

func testPaymentIsolation(t *testing.T, s payport.Store) {
	a, b := newMerchant(t, s), newMerchant(t, s)
	p := samplePayment(a.ID, "imp_111111111111", "shared")
	update(t, s, func(tx payport.Tx) error { return tx.InsertPayment(ctx, &p) })
	_, err := s.PaymentByIMPUID(ctx, b.ID, p.IMPUID)
	wantKind(t, err, payport.KindNotFound, "other merchant's imp_uid")
	_, err = s.FindPayment(ctx, b.ID, "shared", "", payport.DefaultSort)
	wantKind(t, err, payport.KindNotFound, "other merchant's merchant_uid")
}

func testPaymentDuplicateIMPUID(t *testing.T, s payport.Store) {
	a, b := newMerchant(t, s), newMerchant(t, s)
	p := samplePayment(a.ID, "imp_222222222222", "o")
	update(t, s, func(tx payport.Tx) error { return tx.InsertPayment(ctx, &p) })
	q := samplePayment(b.ID, "imp_222222222222", "o")
	err := s.Update(ctx, func(tx payport.Tx) error { return tx.InsertPayment(ctx, &q) })
	wantKind(t, err, payport.KindConflict, "imp_uid taken by another merchant")
}

func testFindPayment(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	// Three attempts at one order: started 10/20/30, paid 0/25/15, updated 50/40/30.
	mk := func(imp string, st payport.Status, started, paid, updated int64) payport.Payment {
		return payport.Payment{MerchantID: m.ID, IMPUID: imp, MerchantUID: "order", Amount: 100, Currency: "KRW",
			Status: st, StartedAt: started, PaidAt: paid, UpdatedAt: updated}
	}
	ps := []payport.Payment{
		mk("imp_000000000010", payport.StatusFailed, 10, 0, 50),
		mk("imp_000000000020", payport.StatusPaid, 20, 25, 40),
		mk("imp_000000000030", payport.StatusPaid, 30, 15, 30),
	}
	update(t, s, func(tx payport.Tx) error {
		for i := range ps {
			if err := tx.InsertPayment(ctx, &ps[i]); err != nil {
				return err
			}
		}
		return nil
	})
	for _, c := range []struct {
		status  payport.Status
		sorting string
		want    string
	}{
		{"", "", "imp_000000000030"},
		{"", "-started", "imp_000000000030"},
		{"", "started", "imp_000000000010"},
		{"", "-paid", "imp_000000000020"},
		{"", "paid", "imp_000000000010"},
		{"", "-updated", "imp_000000000010"},
		{"", "updated", "imp_000000000030"},
		{payport.StatusPaid, "started", "imp_000000000020"},
		{payport.StatusFailed, "", "imp_000000000010"},
	} {
		sort, _ := payport.ParseSort(c.sorting)
		got, err := s.FindPayment(ctx, m.ID, "order", c.status, sort)
		if err != nil || got.IMPUID != c.want {
			t.Errorf("status %q sorting %q: got %s (%v), want %s", c.status, c.sorting, got.IMPUID, err, c.want)
		}
	}
	_, err := s.FindPayment(ctx, m.ID, "order", payport.StatusCancelled, payport.DefaultSort)
	wantKind(t, err, payport.KindNotFound, "no cancelled payment")
}

func testEventInsert(t *testing.T, s payport.Store) {
	m := newMerchant(t, s)
	e := payport.Event{WebhookID: "msg_1", MerchantID: m.ID, URL: "http://h.test/", Type: "paid", IMPUID: "imp_1",
		MerchantUID: "o", Status: "paid", CreatedAt: 1, State: payport.EventPending}
	update(t, s, func(tx payport.Tx) error { return tx.InsertEvent(ctx, &e) })
	if e.ID == 0 {
		t.Fatalf("event id not set")
	}
	dup := e
	err := s.Update(ctx, func(tx payport.Tx) error { return tx.InsertEvent(ctx, &dup) })
	wantKind(t, err, payport.KindConflict, "duplicate webhook id")
}
