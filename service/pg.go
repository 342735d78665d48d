package service

import (
	"strings"

	"github.com/payport/payport"
)

// Refusals of the `pg` parameter (decisions §4.2).
const (
	MsgPGAmbiguous    = "비인증 PG설정이 2개 이상이므로 pg 파라메터를 지정해주세요."
	MsgPGNoNonAuth    = "비인증결제모듈 사용정보를 찾을 수 없습니다."
	MsgPGUnknown      = "등록되지 않은 PG설정입니다: %s"
	MsgPGNeedsID      = "pg 파라메터를 %s.{pg_id} 형식으로 지정해주세요."
	MsgVBankNeedsPG   = "가상계좌 발급을 위해서는 별도의 PG 계약이 필요합니다."
	MsgPGAPIKeyWrong  = "[html5_inicis] hashData 불일치: pg_api_key를 확인해주세요."
	MsgUnknownBank    = "지원하지 않는 은행코드입니다."
	MsgUnknownCard    = "등록되지 않은 구매자입니다."
	MsgCustomerAbsent = "요청하신 customer_uid(%s)로 등록된 정보를 찾을 수 없습니다."
)

// resolvePG picks the merchant's PG setting for a non-authenticated
// operation from the `pg` parameter (decisions §4.2): `{provider}` picks
// that provider's only setting, `{provider}.{pg_id}` one exactly; without
// `pg`, the merchant's only non-authenticated setting.
func resolvePG(settings []payport.PGSetting, pg string) (payport.PGSetting, error) {
	if pg == "" {
		var found []payport.PGSetting
		for _, set := range settings {
			if set.NonAuth {
				found = append(found, set)
			}
		}
		switch len(found) {
		case 0:
			return payport.PGSetting{}, payport.Errorf(payport.KindRefused, "%s", MsgPGNoNonAuth)
		case 1:
			return found[0], nil
		}
		return payport.PGSetting{}, payport.Errorf(payport.KindRefused, "%s", MsgPGAmbiguous)
	}
	provider, pgID, exact := strings.Cut(pg, ".")
	var found []payport.PGSetting
	for _, set := range settings {
		if set.Provider == provider && (!exact || set.PGID == pgID) {
			found = append(found, set)
		}
	}
	switch {
	case len(found) == 0:
		return payport.PGSetting{}, payport.Errorf(payport.KindRefused, MsgPGUnknown, pg)
	case len(found) > 1:
		return payport.PGSetting{}, payport.Errorf(payport.KindRefused, MsgPGNeedsID, provider)
	}
	return found[0], nil
}

// resolveNonAuthPG resolves `pg` for a card operation: the setting must
// allow non-authenticated payments.
func resolveNonAuthPG(settings []payport.PGSetting, pg string) (payport.PGSetting, error) {
	set, err := resolvePG(settings, pg)
	if err == nil && !set.NonAuth {
		return set, payport.Errorf(payport.KindRefused, "%s", MsgPGNoNonAuth)
	}
	return set, err
}

// settingOf returns the merchant's setting for a provider and pg_id, or,
// when it was removed since, one carrying just those names.
func settingOf(settings []payport.PGSetting, provider, pgID string) payport.PGSetting {
	for _, set := range settings {
		if set.Provider == provider && set.PGID == pgID {
			return set
		}
	}
	return payport.PGSetting{Provider: provider, PGID: pgID}
}
