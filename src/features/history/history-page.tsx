export function HistoryPage({ number }: { number: string }) { return <p>{number}</p> }
