package report

// A table is one table of the page, as display text. The page template
// lays every table out the same way: a grid of columns on a wide screen
// and in print, and on a phone a card per row whose cells carry their
// column's name, so no table is wider than the screen.
type table struct {
	Cols []column
	Rows []row
	Note string // said below the table, e.g. how many rows are not listed
}

type column struct {
	Head string
	Mono bool // identifiers and digests: monospace
	Chip bool // a status chip, coloured by its row's class
}

type row struct {
	Class string
	Cells []string // one per column
}

func newTable(cols ...column) *table { return &table{Cols: cols} }

func col(head string) column  { return column{Head: head} }
func mono(head string) column { return column{Head: head, Mono: true} }
func chip(head string) column { return column{Head: head, Chip: true} }

func (t *table) add(cells ...string) { t.Rows = append(t.Rows, row{Cells: cells}) }

func (t *table) addClass(class string, cells ...string) {
	t.Rows = append(t.Rows, row{Class: class, Cells: cells})
}

// full reports whether the table holds maxRows rows.
func (t *table) full() bool { return len(t.Rows) >= maxRows }

// orNil is t, or nil when it has no rows (the page then shows no table).
func (t *table) orNil() *table {
	if t == nil || len(t.Rows) == 0 {
		return nil
	}
	return t
}
