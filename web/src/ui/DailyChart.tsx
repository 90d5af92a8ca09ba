import { formatCount, formatDate } from './format';

export interface DailySeries {
  key: string;
  label: string;
  color: string;
}

const WIDTH = 720;
const HEIGHT = 220;
const PAD = { top: 12, right: 12, bottom: 28, left: 48 };

/**
 * Counts per day as grouped bars, in plain SVG like the campaign timeline (no chart library to
 * ship). Screen readers get a summary, and the numbers are one click away as a table.
 */
export function DailyChart<T extends { date: string }>({
  title,
  days,
  series,
}: {
  title: string;
  days: T[];
  series: DailySeries[];
}) {
  const value = (day: T, key: string) => (day as unknown as Record<string, number>)[key] ?? 0;
  const max = Math.max(1, ...days.flatMap((day) => series.map((s) => value(day, s.key))));
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotWidth / Math.max(1, days.length);
  const bar = Math.max(1, (slot * 0.8) / series.length);
  const y = (n: number) => PAD.top + plotHeight - (n / max) * plotHeight;
  const totals = series.map((s) => days.reduce((sum, day) => sum + value(day, s.key), 0));
  const summary = `${title}: ${series
    .map((s, i) => `${formatCount(totals[i])} ${s.label.toLowerCase()}`)
    .join(', ')} over ${days.length} days.`;
  const labelEvery = Math.max(1, Math.ceil(days.length / 6));

  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={summary}

        data-testid="daily-chart"
      >
        {[0, 0.5, 1].map((share) => (
          <g key={share}>
            <line
              x1={PAD.left}
              x2={WIDTH - PAD.right}
              y1={y(max * share)}
              y2={y(max * share)}
              className="grid"
            />
            <text x={PAD.left - 6} y={y(max * share) + 4} textAnchor="end" className="axis">
              {formatCount(Math.round(max * share))}
            </text>
          </g>
        ))}
        {days.map((day, index) =>
          series.map((s, i) => {
            const n = value(day, s.key);
            return (
              <rect
                key={`${day.date}-${s.key}`}
                x={PAD.left + index * slot + slot * 0.1 + i * bar}
                y={y(n)}
                width={bar}
                height={Math.max(0, PAD.top + plotHeight - y(n))}
                fill={s.color}
              >
                <title>{`${formatDate(`${day.date}T12:00:00Z`)}: ${formatCount(n)} ${s.label.toLowerCase()}`}</title>
              </rect>
            );
          }),
        )}
        {days.map((day, index) =>
          index % labelEvery === 0 ? (
            <text
              key={day.date}
              x={PAD.left + index * slot + slot / 2}
              y={HEIGHT - 8}
              textAnchor="middle"
              className="axis"
            >
              {day.date.slice(5)}
            </text>
          ) : null,
        )}
      </svg>
      <ul className="legend">
        {series.map((s, i) => (
          <li key={s.key}>
            <span className="swatch" style={{ background: s.color }} aria-hidden="true" />
            {s.label} ({formatCount(totals[i])})
          </li>
        ))}
      </ul>
      <details>
        <summary>Show the numbers</summary>
        <div className="table-wrap">
          <table className="table table-compact">
            <caption className="visually-hidden">{title} per day</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((s) => (
                  <th scope="col" key={s.key}>
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days.map((day) => (
                <tr key={day.date}>
                  <td className="nowrap">{day.date}</td>
                  {series.map((s) => (
                    <td key={s.key} className="numeric">
                      {formatCount(value(day, s.key))}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
