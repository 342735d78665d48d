package rowmap

import (
	"sort"

	"github.com/payport/payport"
)

// The contract promises orders that UPDATE … RETURNING does not give (it
// yields rows in no defined order); both engines restore them with these.

// SortSchedules orders schedules by schedule_at, then id.
func SortSchedules(list []payport.Schedule) {
	sort.Slice(list, func(i, j int) bool {
		if list[i].ScheduleAt != list[j].ScheduleAt {
			return list[i].ScheduleAt < list[j].ScheduleAt
		}
		return list[i].ID < list[j].ID
	})
}

// SortEventsByDue orders events oldest due first: by next_attempt_at, then id.
func SortEventsByDue(list []payport.Event) {
	sort.Slice(list, func(i, j int) bool {
		if list[i].NextAttemptAt != list[j].NextAttemptAt {
			return list[i].NextAttemptAt < list[j].NextAttemptAt
		}
		return list[i].ID < list[j].ID
	})
}
