/** Figures as a paper prints them: points to two decimals, p-values to three significant digits. */
export const roundPoints = (v: number | null): number | null => (v === null ? null : Math.round(v * 100) / 100);

export const roundP = (p: number | null): number | null => (p === null ? null : Number(p.toPrecision(3)));

export const roundInterval = (ci: [number, number] | null): [number, number] | null => (ci ? [roundPoints(ci[0])!, roundPoints(ci[1])!] : null);
