// Package sandbox is payport's built-in payment gateway: an in-memory
// implementation of payport.Gateway that moves no money and decides every
// outcome from the card number, following decisions §4.3.
//
// It owns the test card table, card validation (number format, Luhn check,
// expiry), the masked card number form, the format of billing-key tokens,
// PG transaction ids (PGTID), approval numbers and virtual account numbers.
// It keeps no state: a billing key's token encodes the outcome of charges on
// it (never the card number), so any instance can charge a key issued by
// another. Apart from random identifiers, drawn from crypto/rand, it is
// deterministic, and it is safe for concurrent use.
//
// Test cards:
//
//	4242-4242-4242-4242  approved; credit; 366 신한카드
//	5555-5555-5555-4444  approved; credit; 381 KB국민카드
//	4000-0566-5566-5556  approved; debit;  371 NH농협카드
//	4000-0000-0000-0002  declined: [카드사 거절] 승인이 거절되었습니다.
//	4000-0000-0000-9995  declined: [카드사 거절] 잔액이 부족합니다.
//	4000-0000-0000-0341  registers as a billing key; every charge declines:
//	                     [카드사 거절] 한도가 초과되었습니다.
//	any other number     approved; credit; 361 BC카드
//
// The two declined cards cannot be registered as billing keys: the issuer
// refuses them with their fail reason. Any number must be dddd-dddd-dddd-dddd
// and pass the Luhn check, and the expiry must be YYYY-MM and not before the
// current month in Asia/Seoul time, else the card is rejected before
// reaching the issuer with a KindDeclined error.
package sandbox
