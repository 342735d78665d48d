package rowmap

import (
	"fmt"
	"strings"

	"github.com/payport/payport"
)

// Names splits a column list such as PaymentColumns into its column names.
func Names(columns string) []string {
	names := strings.Split(columns, ",")
	for i := range names {
		names[i] = strings.TrimSpace(names[i])
	}
	return names
}

// Prefixed qualifies every column of a column list with prefix ("s."),
// for a query that joins the table under that alias.
func Prefixed(prefix, columns string) string {
	names := Names(columns)
	for i, n := range names {
		names[i] = prefix + n
	}
	return strings.Join(names, ", ")
}

// PaymentColumns lists the payments columns in the order of PaymentFields.
const PaymentColumns = `id, merchant_id, imp_uid, merchant_uid, pay_method, channel, pg_provider, emb_pg_provider,
	pg_tid, pg_id, escrow, apply_num, bank_code, bank_name, card_code, card_name, card_quota, card_number,
	card_type, vbank_code, vbank_name, vbank_num, vbank_holder, vbank_date, vbank_issued_at, name, amount,
	cancel_amount, currency, buyer_name, buyer_email, buyer_tel, buyer_addr, buyer_postcode, custom_data,
	user_agent, status, started_at, paid_at, failed_at, cancelled_at, fail_reason, cancel_reason, receipt_url,
	cash_receipt_issued, customer_uid, customer_uid_usage, notice_url, updated_at`

// PaymentFields returns pointers to p's fields in the order of
// PaymentColumns, for Scan; PaymentValues dereferences them.
func PaymentFields(p *payport.Payment) []any {
	return []any{&p.ID, &p.MerchantID, &p.IMPUID, &p.MerchantUID, &p.PayMethod, &p.Channel, &p.PGProvider,
		&p.EmbPGProvider, &p.PGTID, &p.PGID, &p.Escrow, &p.ApplyNum, &p.BankCode, &p.BankName, &p.CardCode,
		&p.CardName, &p.CardQuota, &p.CardNumber, &p.CardType, &p.VBankCode, &p.VBankName, &p.VBankNum,
		&p.VBankHolder, &p.VBankDate, &p.VBankIssuedAt, &p.Name, &p.Amount, &p.CancelAmount, &p.Currency,
		&p.BuyerName, &p.BuyerEmail, &p.BuyerTel, &p.BuyerAddr, &p.BuyerPostcode, &p.CustomData, &p.UserAgent,
		&p.Status, &p.StartedAt, &p.PaidAt, &p.FailedAt, &p.CancelledAt, &p.FailReason, &p.CancelReason,
		&p.ReceiptURL, &p.CashReceiptIssued, &p.CustomerUID, &p.CustomerUIDUsage, &p.NoticeURL, &p.UpdatedAt}
}

// PaymentValues dereferences PaymentFields, leaving out the id: the values
// of an INSERT of every column of PaymentColumns but the first, as plain
// Go types (a Currency or Status as a string).
func PaymentValues(p *payport.Payment) []any {
	ptrs := PaymentFields(p)[1:]
	vals := make([]any, len(ptrs))
	for i, ptr := range ptrs {
		switch v := ptr.(type) {
		case *string:
			vals[i] = *v
		case *int64:
			vals[i] = *v
		case *int:
			vals[i] = *v
		case *bool:
			vals[i] = *v
		case *payport.Currency:
			vals[i] = string(*v)
		case *payport.Status:
			vals[i] = string(*v)
		default:
			panic(fmt.Sprintf("rowmap: payment field of type %T", ptr))
		}
	}
	return vals
}

// ImmutablePaymentColumns is the number of leading columns of
// PaymentColumns that an update of a payment never writes: id,
// merchant_id, imp_uid and merchant_uid.
const ImmutablePaymentColumns = 4

// PaymentUpdateColumns returns the names of the columns that an update of
// a payment writes: every column of PaymentColumns after the immutable
// ones, in order, so that they stay in step with PaymentUpdateValues by
// construction. It panics if PaymentColumns does not begin with the
// immutable columns.
func PaymentUpdateColumns() []string {
	names := Names(PaymentColumns)
	if strings.Join(names[:ImmutablePaymentColumns], ",") != "id,merchant_id,imp_uid,merchant_uid" {
		panic("rowmap: PaymentColumns must begin with id, merchant_id, imp_uid, merchant_uid")
	}
	return names[ImmutablePaymentColumns:]
}

// PaymentUpdateValues returns p's values of PaymentUpdateColumns, in
// order.
func PaymentUpdateValues(p *payport.Payment) []any {
	return PaymentValues(p)[ImmutablePaymentColumns-1:]
}

// CancelColumns lists the payment_cancels columns in the order of
// CancelFields.
const CancelColumns = `id, payment_id, pg_tid, amount, cancelled_at, reason, receipt_url`

// CancelFields returns pointers to c's fields in the order of
// CancelColumns, for Scan.
func CancelFields(c *payport.CancelEntry) []any {
	return []any{&c.ID, &c.PaymentID, &c.PGTID, &c.Amount, &c.CancelledAt, &c.Reason, &c.ReceiptURL}
}

// BalanceColumns lists the payment_balances columns in the order of
// BalanceFields.
const BalanceColumns = `id, payment_id, created_at, primary_amount, primary_tax_free, secondary_amount,
	secondary_tax_free, discount_amount, discount_tax_free, cash_receipt_amount, cash_receipt_tax_free`

// BalanceFields returns pointers to b's fields in the order of
// BalanceColumns, for Scan.
func BalanceFields(b *payport.BalanceEntry) []any {
	return []any{&b.ID, &b.PaymentID, &b.CreatedAt,
		&b.Primary.Amount, &b.Primary.TaxFree, &b.Secondary.Amount, &b.Secondary.TaxFree,
		&b.Discount.Amount, &b.Discount.TaxFree, &b.CashReceipt.Amount, &b.CashReceipt.TaxFree}
}

// ScheduleColumns lists the schedules columns in the order of
// ScheduleFields.
const ScheduleColumns = `id, merchant_id, customer_uid, merchant_uid, imp_uid, schedule_at, executed_at, revoked_at,
	amount, tax_free, currency, name, buyer_name, buyer_email, buyer_tel, buyer_addr, buyer_postcode,
	custom_data, notice_url, status, payment_status, fail_reason`

// ScheduleFields returns pointers to s's fields in the order of
// ScheduleColumns, for Scan.
func ScheduleFields(s *payport.Schedule) []any {
	return []any{&s.ID, &s.MerchantID, &s.CustomerUID, &s.MerchantUID, &s.IMPUID, &s.ScheduleAt, &s.ExecutedAt,
		&s.RevokedAt, &s.Amount, &s.TaxFree, &s.Currency, &s.Name, &s.BuyerName, &s.BuyerEmail, &s.BuyerTel,
		&s.BuyerAddr, &s.BuyerPostcode, &s.CustomData, &s.NoticeURL, &s.Status, &s.PaymentStatus, &s.FailReason}
}

// CustomerColumns lists the customers columns in the order of
// CustomerFields.
const CustomerColumns = `merchant_id, customer_uid, pg_provider, pg_id, card_name, card_code, card_number,
	card_type, gateway_token, customer_name, customer_tel, customer_email, customer_addr, customer_postcode,
	inserted, updated`

// CustomerFields returns pointers to c's fields in the order of
// CustomerColumns, for Scan.
func CustomerFields(c *payport.Customer) []any {
	return []any{&c.MerchantID, &c.CustomerUID, &c.PGProvider, &c.PGID, &c.CardName, &c.CardCode,
		&c.CardNumber, &c.CardType, &c.GatewayToken, &c.CustomerName, &c.CustomerTel, &c.CustomerEmail,
		&c.CustomerAddr, &c.CustomerPostcode, &c.Inserted, &c.Updated}
}

// EventColumns lists the webhook_events columns in the order of
// EventFields.
const EventColumns = `id, webhook_id, merchant_id, url, type, imp_uid, merchant_uid, status, cancellation_id,
	created_at, state, attempts, next_attempt_at`

// EventFields returns pointers to e's fields in the order of EventColumns,
// for Scan.
func EventFields(e *payport.Event) []any {
	return []any{&e.ID, &e.WebhookID, &e.MerchantID, &e.URL, &e.Type, &e.IMPUID, &e.MerchantUID, &e.Status,
		&e.CancelID, &e.CreatedAt, &e.State, &e.Attempts, &e.NextAttemptAt}
}

// AppendEventRow folds one row of events LEFT JOINed with their attempts,
// ordered by event, into list: e starts a new event, with an empty
// History, unless it is the last event of list, and when hasAttempt (the
// row's attempt columns are not NULL) a is appended to that event's
// History with its EventID set. It returns the extended list.
func AppendEventRow(list []payport.Event, e payport.Event, a payport.Attempt, hasAttempt bool) []payport.Event {
	if n := len(list); n == 0 || list[n-1].ID != e.ID {
		e.History = []payport.Attempt{}
		list = append(list, e)
	}
	if hasAttempt {
		a.EventID = e.ID
		last := &list[len(list)-1]
		last.History = append(last.History, a)
	}
	return list
}

// MerchantColumns lists the merchants columns in the order of
// MerchantFields.
const MerchantColumns = `id, name, imp_key, imp_secret_hash, notification_url, webhook_content_type,
	webhook_max_attempts, schedule_list_paged, webhook_secret_id, clock_offset, created_at`

// MerchantFields returns pointers to m's fields in the order of
// MerchantColumns, for Scan.
func MerchantFields(m *payport.Merchant) []any {
	return []any{&m.ID, &m.Name, &m.IMPKey, &m.IMPSecretHash, &m.NotificationURL, &m.WebhookContentType,
		&m.WebhookMaxAttempts, &m.ScheduleListPaged, &m.WebhookSecretID, &m.ClockOffset, &m.CreatedAt}
}

// PGSettingColumns lists the columns of a merchant's PG settings table
// (named differently by each engine) in the order of PGSettingFields.
const PGSettingColumns = `id, merchant_id, pg_provider, pg_id, nonauth, vbank, api_key_hash, created_at`

// PGSettingFields returns pointers to s's fields in the order of
// PGSettingColumns, for Scan.
func PGSettingFields(s *payport.PGSetting) []any {
	return []any{&s.ID, &s.MerchantID, &s.Provider, &s.PGID, &s.NonAuth, &s.VBank, &s.APIKeyHash, &s.CreatedAt}
}

// TokenColumns lists the api_tokens columns that payport.Token holds, in
// the order of TokenFields (an engine's table may have more).
const TokenColumns = `token_hash, token_id, merchant_id, kind, family_id, issued_at, expires_at, used_at, revoked_at`

// TokenFields returns pointers to t's fields in the order of TokenColumns,
// for Scan.
func TokenFields(t *payport.Token) []any {
	return []any{&t.Hash, &t.ID, &t.MerchantID, &t.Kind, &t.FamilyID, &t.IssuedAt, &t.ExpiresAt, &t.UsedAt, &t.RevokedAt}
}
