package payport

// PGProvider describes what a payment-gateway provider can do in payport
// (decisions §4.1).
type PGProvider struct {
	Code      string
	NonAuth   bool   // non-authenticated card payments (onetime, billing keys)
	VBank     bool   // virtual accounts
	Phone     bool   // mobile micro-payment (pay_method "phone")
	TestPGID  string // the pg_id a sandbox payment uses when the merchant has no setting
	HasAPIKey bool   // a setting of this provider gets a generated api_key
}

// PGProviders lists the known providers by code.
var PGProviders = map[string]PGProvider{
	"nice":         {Code: "nice", NonAuth: true, VBank: true, TestPGID: "nictest04m"},
	"html5_inicis": {Code: "html5_inicis", NonAuth: true, VBank: true, TestPGID: "INIpayTest", HasAPIKey: true},
	"settle":       {Code: "settle", NonAuth: true, VBank: true, TestPGID: "M2103135"},
	"ksnet":        {Code: "ksnet", NonAuth: true, VBank: true, TestPGID: "2999199999"},
	"welcome":      {Code: "welcome", NonAuth: true, VBank: true, TestPGID: "welcometst"},
	"kcp":          {Code: "kcp", NonAuth: true, TestPGID: "T0000"},
	"daou":         {Code: "daou", NonAuth: true, TestPGID: "CTS16826"},
	"tosspayments": {Code: "tosspayments", NonAuth: true, TestPGID: "tosstest"},
	"payco":        {Code: "payco", TestPGID: "PARTNERTEST"},
	"kakaopay":     {Code: "kakaopay", TestPGID: "TC0ONETIME"},
	"danal":        {Code: "danal", Phone: true, TestPGID: "A010002002"},
	"mobilians":    {Code: "mobilians", Phone: true, TestPGID: "M1401000"},
}

// DefaultPGSettings are the settings a new merchant starts with, so that a
// request without `pg` works out of the box.
var DefaultPGSettings = []PGSetting{
	{Provider: "nice", PGID: "nictest04m", NonAuth: true, VBank: true},
	{Provider: "payco", PGID: "PARTNERTEST"},
}

// Banks maps the bank standard codes the sandbox knows to their names
// (decisions §3.5). It is the one bank code table of the project.
var Banks = map[string]string{
	"003": "IBK기업은행",
	"004": "KB국민은행",
	"011": "NH농협은행",
	"020": "우리은행",
	"023": "SC제일은행",
	"027": "한국씨티은행",
	"031": "대구은행",
	"032": "부산은행",
	"081": "하나은행",
	"088": "신한은행",
	"089": "케이뱅크",
	"090": "카카오뱅크",
	"092": "토스뱅크",
}

// PayMethods lists the pay_method codes a payment may carry.
var PayMethods = map[string]bool{
	"card": true, "trans": true, "vbank": true, "phone": true, "samsung": true, "kpay": true,
	"kakaopay": true, "payco": true, "lpay": true, "ssgpay": true, "tosspay": true,
	"cultureland": true, "smartculture": true, "happymoney": true, "booknlife": true,
	"point": true, "naverpay": true, "paypal": true, "alipay": true, "wechat": true,
}
