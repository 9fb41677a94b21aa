package mysql

import "testing"

// TestEffective: the cosigned note is served only while the checkpoint row
// holds the same tree with the same signatures (Tessera's republication of
// an unchanged tree); a new tree, or another signature, serves the row.
func TestEffective(t *testing.T) {
	row := []byte("example.org/log\n2\nROOT=\n\n— example.org/log LOGSIG\n")
	cosigned := []byte("example.org/log\n2\nROOT=\n\n— example.org/log LOGSIG\n— example.org/w1 COSIG\n")
	for _, tt := range []struct {
		name     string
		row      []byte
		want     []byte
		cosigned []byte
	}{
		{"same tree republished", row, cosigned, cosigned},
		{"a new tree", []byte("example.org/log\n3\nROOT3=\n\n— example.org/log LOGSIG3\n"), nil, cosigned},
		{"same text, other log signature", []byte("example.org/log\n2\nROOT=\n\n— example.org/log OTHER\n"), nil, cosigned},
		{"not a note", []byte("garbage"), nil, cosigned},
	} {
		want := tt.want
		if want == nil {
			want = tt.row
		}
		if got := effective(tt.row, tt.cosigned); string(got) != string(want) {
			t.Errorf("%s: %q, want %q", tt.name, got, want)
		}
	}
}
