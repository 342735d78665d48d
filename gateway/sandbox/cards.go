package sandbox

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/payport/payport"
)

// Test card numbers (decisions §4.3).
const (
	// CardShinhan is approved as a 신한카드 credit card.
	CardShinhan = "4242-4242-4242-4242"
	// CardKB is approved as a KB국민카드 credit card.
	CardKB = "5555-5555-5555-4444"
	// CardNHDebit is approved as an NH농협카드 debit card.
	CardNHDebit = "4000-0566-5566-5556"
	// CardRejected is declined by the issuer and cannot be registered.
	CardRejected = "4000-0000-0000-0002"
	// CardNoFunds is declined for insufficient funds and cannot be registered.
	CardNoFunds = "4000-0000-0000-9995"
	// CardOverLimit registers as a billing key, but every charge declines.
	CardOverLimit = "4000-0000-0000-0341"
)

// Messages of cards rejected before reaching the issuer (decisions §4.3).
const (
	msgBadNumber = "카드정보 인증에 실패하였습니다. [유효하지않은 카드번호]"
	msgBadExpiry = "카드정보 인증에 실패하였습니다. [유효기간 오류]"
)

// Card types of payport.CardInfo.
const (
	credit = "0"
	debit  = "1"
)

// outcome is what a charge of a card does. Billing-key tokens carry it, so
// its values are part of the token format: never change them.
type outcome string

// The outcomes of charges.
const (
	approve   outcome = "ok"
	reject    outcome = "rj"
	noFunds   outcome = "nf"
	overLimit outcome = "ol"
)

// failReasons gives each outcome's fail reason; "" approves.
var failReasons = map[outcome]string{
	approve:   "",
	reject:    "[카드사 거절] 승인이 거절되었습니다.",
	noFunds:   "[카드사 거절] 잔액이 부족합니다.",
	overLimit: "[카드사 거절] 한도가 초과되었습니다.",
}

// testCard is how the sandbox treats a card number.
type testCard struct {
	issuer    payport.CardInfo // code, name and type; Number is filled per card
	outcome   outcome          // what every charge of the card does
	refuseKey bool             // the issuer refuses to register it as a billing key
}

var (
	bc      = payport.CardInfo{Code: "361", Name: "BC카드", Type: credit}
	shinhan = payport.CardInfo{Code: "366", Name: "신한카드", Type: credit}
	kb      = payport.CardInfo{Code: "381", Name: "KB국민카드", Type: credit}
	nhDebit = payport.CardInfo{Code: "371", Name: "NH농협카드", Type: debit}
)

// anyCard is the treatment of a valid number that is not a test card.
var anyCard = testCard{issuer: bc, outcome: approve}

// testCards is the table of test cards (decisions §4.3).
var testCards = map[string]testCard{
	CardShinhan:   {issuer: shinhan, outcome: approve},
	CardKB:        {issuer: kb, outcome: approve},
	CardNHDebit:   {issuer: nhDebit, outcome: approve},
	CardRejected:  {issuer: bc, outcome: reject, refuseKey: true},
	CardNoFunds:   {issuer: bc, outcome: noFunds, refuseKey: true},
	CardOverLimit: {issuer: bc, outcome: overLimit},
}

// lookupCard returns the treatment of a well-formed card number.
func lookupCard(number string) testCard {
	if c, ok := testCards[number]; ok {
		return c
	}
	return anyCard
}

// seoul is Asia/Seoul. Korea has kept UTC+9 without daylight saving since
// 1988, so a fixed zone is exact and needs no time zone database.
var seoul = time.FixedZone("Asia/Seoul", 9*60*60)

var (
	numberRE = regexp.MustCompile(`^\d{4}-\d{4}-\d{4}-\d{4}$`)
	expiryRE = regexp.MustCompile(`^(\d{4})-(\d{2})$`)
)

// checkCard validates card at now (UNIX seconds) and returns its treatment
// and what the gateway tells about it. The number is checked first.
func checkCard(card payport.Card, now int64) (testCard, payport.CardInfo, error) {
	if !validNumber(card.Number) {
		return testCard{}, payport.CardInfo{}, declined(msgBadNumber)
	}
	if !validExpiry(card.Expiry, now) {
		return testCard{}, payport.CardInfo{}, declined(msgBadExpiry)
	}
	c := lookupCard(card.Number)
	info := c.issuer
	info.Number = maskNumber(digitsOf(card.Number))
	return c, info, nil
}

// validNumber reports whether number is dddd-dddd-dddd-dddd and passes the
// Luhn check.
func validNumber(number string) bool {
	return numberRE.MatchString(number) && luhn(digitsOf(number))
}

// digitsOf returns a well-formed card number without its dashes.
func digitsOf(number string) string { return strings.ReplaceAll(number, "-", "") }

// luhn reports whether the ASCII digits pass the Luhn check.
func luhn(digits string) bool {
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// validExpiry reports whether expiry is YYYY-MM with a month 01–12 and the
// card is still valid at now: it is valid through the last day of its month
// in Asia/Seoul time.
func validExpiry(expiry string, now int64) bool {
	m := expiryRE.FindStringSubmatch(expiry)
	if m == nil {
		return false
	}
	year, _ := strconv.Atoi(m[1])
	month, _ := strconv.Atoi(m[2])
	if month < 1 || month > 12 {
		return false
	}
	t := time.Unix(now, 0).In(seoul)
	return year*12+month >= t.Year()*12+int(t.Month())
}

// maskNumber masks card digits as payport shows them: the first 6 digits,
// '*' for the middle and the last 4, e.g. 424242******4242.
func maskNumber(digits string) string {
	if len(digits) <= 10 {
		return strings.Repeat("*", len(digits))
	}
	return digits[:6] + strings.Repeat("*", len(digits)-10) + digits[len(digits)-4:]
}
