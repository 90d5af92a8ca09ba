import type { Timeline, TimelineSeries } from '../api/types';
import { formatCount } from './format';

const SERIES: { key: TimelineSeries; label: string; color: string }[] = [
  { key: 'delivered', label: 'Delivered', color: '#2563eb' },
  { key: 'failed', label: 'Failed', color: '#dc2626' },
  { key: 'skipped', label: 'Skipped', color: '#a16207' },
  { key: 'opens', label: 'Opens', color: '#059669' },
  { key: 'clicks', label: 'Clicks', color: '#7c3aed' },
];

const WIDTH = 720;
const HEIGHT = 260;
const PAD = { top: 12, right: 16, bottom: 28, left: 48 };

/**
 * Cumulative counts over the campaign's life as lines, in plain SVG (no chart library to
 * ship). Screen readers get a summary, and the numbers are one click away as a table.
 */
export function TimelineChart({ timeline }: { timeline: Timeline }) {
  const buckets = timeline.buckets;
  if (buckets.length === 0) return <p className="muted">Nothing has been sent yet.</p>;

  // Each line starts at zero when the first bucket opens and steps up at each bucket's end,
  // so even a send that fitted in one bucket draws as a rise, not a lone point.
  const cumulative = SERIES.map(({ key }) => {
    let total = 0;
    return [0, ...buckets.map((bucket) => (total += bucket[key]))];
  });
  const points = buckets.length + 1;
  const max = Math.max(1, ...cumulative.map((values) => values.at(-1) ?? 0));
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const x = (index: number) => PAD.left + (index / (points - 1)) * plotWidth;
  const y = (value: number) => PAD.top + plotHeight - (value / max) * plotHeight;
  const yTicks = niceTicks(max);
  const startMs = new Date(buckets[0].at).getTime();
  const timeAt = (index: number) => new Date(startMs + index * timeline.bucket_seconds * 1000);
  const xTicks = [0, Math.round((points - 1) / 2), points - 1].filter(
    (value, index, all) => all.indexOf(value) === index,
  );
  const time = (date: Date) =>
    date.toLocaleTimeString(undefined, {
      hour: '2-digit',
      minute: '2-digit',
      second: timeline.bucket_seconds < 60 ? '2-digit' : undefined,
    });
  const totals = SERIES.map(
    ({ label }, index) => `${label} ${formatCount(cumulative[index].at(-1) ?? 0)}`,
  ).join(', ');

  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`Cumulative totals over time: ${totals}.`}
      >
        {yTicks.map((tick) => (
          <g key={tick}>
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(tick)} y2={y(tick)} className="grid" />
            <text x={PAD.left - 8} y={y(tick) + 4} textAnchor="end" className="axis">
              {formatCount(tick)}
            </text>
          </g>
        ))}
        {xTicks.map((index) => (
          <text key={index} x={x(index)} y={HEIGHT - 8} textAnchor="middle" className="axis">
            {time(timeAt(index))}
          </text>
        ))}
        {SERIES.map((series, index) => (
          <g key={series.key}>
            <polyline
              fill="none"
              stroke={series.color}
              strokeWidth={2.5}
              strokeLinejoin="round"
              points={cumulative[index].map((value, i) => `${x(i)},${y(value)}`).join(' ')}
            />
            <circle
              cx={x(points - 1)}
              cy={y(cumulative[index].at(-1) ?? 0)}
              r={4}
              fill={series.color}
            />
          </g>
        ))}
      </svg>
      <figcaption>
        <ul className="legend">
          {SERIES.map((series, index) => (
            <li key={series.key}>
              <span className="swatch" style={{ background: series.color }} aria-hidden="true" />
              {series.label} <strong>{formatCount(cumulative[index].at(-1) ?? 0)}</strong>
            </li>
          ))}
        </ul>
        <details>
          <summary>Show the numbers</summary>
          <div className="table-wrap">
            <table className="table table-compact">
              <thead>
                <tr>
                  <th scope="col">From</th>
                  {SERIES.map((series) => (
                    <th scope="col" key={series.key}>
                      {series.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {buckets.map((bucket, index) => (
                  <tr key={bucket.at}>
                    <td>{time(timeAt(index))}</td>
                    {SERIES.map((series) => (
                      <td key={series.key}>{formatCount(bucket[series.key])}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </figcaption>
    </figure>
  );
}

function niceTicks(max: number): number[] {
  const step = Math.max(1, niceStep(max / 4));
  const ticks: number[] = [];
  for (let value = 0; value <= max; value += step) ticks.push(value);
  return ticks;
}

function niceStep(raw: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  const scaled = raw / magnitude;
  const nice = scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 5 ? 5 : 10;
  return nice * magnitude;
}
