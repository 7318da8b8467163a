package ui

// component is what the root asks of every panel (in the spirit of soft-serve's
// common.Component): a size, the styles, and a view. Panels take no input; their data
// comes through a SetData of their own.
type component interface {
	SetSize(w, h int)
	SetStyles(st Styles)
	View() string
}

var (
	_ component = (*headerPanel)(nil)
	_ component = (*seriesPanel)(nil)
	_ component = (*curvePanel)(nil)
	_ component = (*tablePanel)(nil)
	_ component = (*statusPanel)(nil)
)

// panels are the panels the live screen and replay both show, sized and styled together.
type panels struct {
	header headerPanel
	series seriesPanel
	curve  curvePanel
	table  tablePanel
	status statusPanel
}

// setSizes sizes the shared panels to the layout.
func (p *panels) setSizes(l layout) {
	p.header.SetSize(l.Width, l.Header)
	p.series.SetSize(l.Width, l.Series)
	p.curve.SetSize(l.CurveW, l.Curve)
	p.table.SetSize(l.TableW, l.Table)
	p.status.SetSize(l.Width, l.Status)
}

// setStyles gives the shared panels the styles of a theme.
func (p *panels) setStyles(st Styles) {
	for _, c := range []component{&p.header, &p.series, &p.curve, &p.table, &p.status} {
		c.SetStyles(st)
	}
}

// panel is the part every panel embeds (in the spirit of soft-serve's common.Common):
// its size, the styles, and its view cached until something it draws changes. A
// panel's SetData sets dirty; its View is view(render).
type panel struct {
	st    Styles
	w, h  int
	cache string
	dirty bool // the cache is stale: render again on the next View
}

// SetSize sets the panel's size in cells; the next View redraws.
func (p *panel) SetSize(w, h int) { p.w, p.h, p.dirty = w, h, true }

// SetStyles sets the styles (a new theme); the next View redraws.
func (p *panel) SetStyles(st Styles) { p.st, p.dirty = st, true }

// view returns the cached view, calling render first when the panel is dirty. A panel
// with no room shows nothing and is not rendered.
func (p *panel) view(render func() string) string {
	if p.dirty {
		p.cache = ""
		if p.w > 0 && p.h > 0 {
			p.cache = render()
		}
		p.dirty = false
	}
	return p.cache
}
