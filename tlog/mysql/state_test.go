package mysql

import (
	"strings"
	"testing"
)

// StateSchema holds every mcpres table and none of Tessera's MySQL
// driver's: Tessera's AWS driver keeps its own tables in the database it
// shares with the state (its "Tessera" table differs in type).
func TestStateSchema(t *testing.T) {
	for _, table := range []string{"mcpresDedup", "mcpresDedupState", "mcpresLog", "mcpresClaim", "mcpresWitnessed"} {
		if !strings.Contains(StateSchema, "CREATE TABLE IF NOT EXISTS `"+table+"`") {
			t.Errorf("StateSchema lacks %s", table)
		}
	}
	for _, table := range []string{"Tessera", "`Checkpoint`", "`TreeState`", "`Subtree`", "`TiledLeaves`"} {
		if strings.Contains(StateSchema, "CREATE TABLE IF NOT EXISTS "+table) {
			t.Errorf("StateSchema creates Tessera's table %s", table)
		}
	}
}
