/**
 * A shared corpus for segment counts. The expected values were worked out by hand from
 * 3GPP TS 23.038 / 23.040 and the rules of Twilio's open-source message-segment-calculator
 * (github.com/TwilioDevEd/message-segment-calculator: grapheme clusters never split, CR LF as two
 * characters, an escape sequence never split across segments), not by running our own code.
 * Long bodies are written as repeats so the arithmetic can be checked by eye.
 */

export interface SegmentCase {
  body: string
  encoding: 'GSM-7' | 'UCS-2'
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  units: number
  segments: number
  /** The distinct characters that force UCS-2, when the case pins them. */
  ucs2?: string[]
  note?: string
}

const a = (n: number) => 'a'.repeat(n)
// Cyrillic "ы": one UCS-2 unit, not in the GSM-7 alphabet.
const y = (n: number) => 'ы'.repeat(n)
const smile = (n: number) => '😀'.repeat(n)

export const SEGMENT_CORPUS: SegmentCase[] = [
  // Plain GSM-7: single segment up to 160 septets, then 153 each.
  { body: a(1), encoding: 'GSM-7', units: 1, segments: 1 },
  { body: a(70), encoding: 'GSM-7', units: 70, segments: 1 },
  { body: a(71), encoding: 'GSM-7', units: 71, segments: 1 },
  { body: a(159), encoding: 'GSM-7', units: 159, segments: 1 },
  { body: a(160), encoding: 'GSM-7', units: 160, segments: 1, note: 'the single-segment limit' },
  { body: a(161), encoding: 'GSM-7', units: 161, segments: 2, note: 'one over: both parts carry a header' },
  { body: a(200), encoding: 'GSM-7', units: 200, segments: 2 },
  { body: a(305), encoding: 'GSM-7', units: 305, segments: 2 },
  { body: a(306), encoding: 'GSM-7', units: 306, segments: 2, note: '153 × 2' },
  { body: a(307), encoding: 'GSM-7', units: 307, segments: 3 },
  { body: a(458), encoding: 'GSM-7', units: 458, segments: 3 },
  { body: a(459), encoding: 'GSM-7', units: 459, segments: 3, note: '153 × 3' },
  { body: a(460), encoding: 'GSM-7', units: 460, segments: 4 },
  { body: a(612), encoding: 'GSM-7', units: 612, segments: 4 },
  { body: a(613), encoding: 'GSM-7', units: 613, segments: 5 },
  { body: a(765), encoding: 'GSM-7', units: 765, segments: 5 },
  { body: a(766), encoding: 'GSM-7', units: 766, segments: 6 },
  { body: a(1530), encoding: 'GSM-7', units: 1530, segments: 10 },
  { body: a(1531), encoding: 'GSM-7', units: 1531, segments: 11 },
  { body: a(1600), encoding: 'GSM-7', units: 1600, segments: 11, note: 'the usual 1,600-character API cap' },
  { body: '', encoding: 'GSM-7', units: 0, segments: 0, note: 'media only: no SMS segment (the calculator says 1)' },

  // The extension table: two septets each.
  { body: '€', encoding: 'GSM-7', units: 2, segments: 1 },
  { body: '^{}\\[~]|€', encoding: 'GSM-7', units: 18, segments: 1, note: 'all nine printable extension characters' },
  { body: 'form\ffeed', encoding: 'GSM-7', units: 10, segments: 1, note: 'form feed is escape + 0x0A' },
  { body: 'Price: 10€', encoding: 'GSM-7', units: 11, segments: 1 },
  { body: 'Hello {name}, your code is [1234] | valid ~5 min', encoding: 'GSM-7', units: 54, segments: 1 },
  { body: 'C:\\Users\\me\\file.txt', encoding: 'GSM-7', units: 23, segments: 1 },
  { body: '€'.repeat(80), encoding: 'GSM-7', units: 160, segments: 1 },
  { body: '€'.repeat(81), encoding: 'GSM-7', units: 162, segments: 2, note: '76 euro signs fit in 153 septets' },
  {
    body: '€'.repeat(153),
    encoding: 'GSM-7',
    units: 306,
    segments: 3,
    note: '306 septets yet three parts: 76 + 76 + 1, no escape is split',
  },
  { body: a(158) + '€', encoding: 'GSM-7', units: 160, segments: 1 },
  { body: a(159) + '€', encoding: 'GSM-7', units: 161, segments: 2 },
  { body: a(152) + '€', encoding: 'GSM-7', units: 154, segments: 1 },
  { body: a(151) + '€' + a(153), encoding: 'GSM-7', units: 306, segments: 2, note: 'the escape ends part one exactly' },
  {
    body: a(152) + '€' + a(152),
    encoding: 'GSM-7',
    units: 306,
    segments: 3,
    note: 'the escape would straddle 153: it moves whole to part two',
  },
  { body: a(152) + '{' + a(10), encoding: 'GSM-7', units: 164, segments: 2 },
  { body: a(304) + '€', encoding: 'GSM-7', units: 306, segments: 2 },
  { body: a(305) + '€', encoding: 'GSM-7', units: 307, segments: 3 },
  {
    body: a(153) + a(152) + '~' + a(152),
    encoding: 'GSM-7',
    units: 459,
    segments: 4,
    note: 'straddles the second boundary: 153 × 3 septets in four parts',
  },

  // The basic table beyond ASCII.
  { body: '@£$¥èéùìòÇ', encoding: 'GSM-7', units: 10, segments: 1 },
  { body: 'ΔΦΓΛΩΠΨΣΘΞ', encoding: 'GSM-7', units: 10, segments: 1, note: 'the Greek capitals of the default alphabet' },
  { body: 'ÆæßÉ ÄÖÑÜ§ ¿äöñüà ¡', encoding: 'GSM-7', units: 19, segments: 1 },
  { body: '£10 or ¥1000', encoding: 'GSM-7', units: 12, segments: 1 },
  { body: 'Grüße aus München! Ihr Paket ist unterwegs.', encoding: 'GSM-7', units: 43, segments: 1 },
  { body: '#hashtag @user', encoding: 'GSM-7', units: 14, segments: 1 },
  { body: 'Email: a_b@example.com', encoding: 'GSM-7', units: 22, segments: 1 },
  { body: 'https://track.example.com/4412', encoding: 'GSM-7', units: 30, segments: 1 },
  { body: 'Line\nbreak', encoding: 'GSM-7', units: 10, segments: 1 },
  { body: 'a\r\nb', encoding: 'GSM-7', units: 4, segments: 1, note: 'CR LF is two GSM-7 characters, not one grapheme' },
  { body: 'Line one\nLine two\n\nLine four after a blank line', encoding: 'GSM-7', units: 47, segments: 1 },
  { body: 'é', encoding: 'GSM-7', units: 1, segments: 1, note: 'precomposed é is in the alphabet' },
  { body: 'STOP', encoding: 'GSM-7', units: 4, segments: 1 },
  { body: 'ALTO', encoding: 'GSM-7', units: 4, segments: 1 },
  { body: 'ok', encoding: 'GSM-7', units: 2, segments: 1 },
  { body: '$5 off', encoding: 'GSM-7', units: 6, segments: 1 },
  { body: 'Your appointment is confirmed for Tuesday at 3pm. Reply C to cancel.', encoding: 'GSM-7', units: 68, segments: 1 },
  { body: 'Order #4412 shipped. Track: https://track.example.com/4412', encoding: 'GSM-7', units: 58, segments: 1 },
  { body: 'Is the store open on Sunday?', encoding: 'GSM-7', units: 28, segments: 1 },
  {
    body: 'Reminder: your bill of $42.50 is due on 12/01. Pay at https://pay.example.com or reply HELP.',
    encoding: 'GSM-7',
    units: 92,
    segments: 1,
  },
  {
    body: 'This is a long message that carriers split into several segments. '.repeat(26).slice(0, 1600),
    encoding: 'GSM-7',
    units: 1600,
    segments: 11,
    note: "the simulator's long body",
  },

  // One character outside the alphabet makes the whole message UCS-2.
  { body: 'Tab\there', encoding: 'UCS-2', units: 8, segments: 1, ucs2: ['\t'], note: 'tab is not in the GSM-7 alphabet' },
  { body: 'Use `code`', encoding: 'UCS-2', units: 10, segments: 1, ucs2: ['`'] },
  { body: 'Ça va? ça va.', encoding: 'UCS-2', units: 13, segments: 1, ucs2: ['ç'], note: 'capital Ç is GSM-7, small ç is not' },
  { body: 'Está bien', encoding: 'UCS-2', units: 9, segments: 1, ucs2: ['á'] },
  { body: 'Ünïcode', encoding: 'UCS-2', units: 7, segments: 1, ucs2: ['ï'] },
  { body: 'It’s ready', encoding: 'UCS-2', units: 10, segments: 1, ucs2: ['’'], note: 'a curly apostrophe' },
  { body: '“Quoted”', encoding: 'UCS-2', units: 8, segments: 1, ucs2: ['“', '”'] },
  { body: 'Wait… what', encoding: 'UCS-2', units: 10, segments: 1, ucs2: ['…'] },
  { body: 'en – dash', encoding: 'UCS-2', units: 9, segments: 1, ucs2: ['–'] },
  { body: 'em — dash', encoding: 'UCS-2', units: 9, segments: 1, ucs2: ['—'] },
  { body: 'a\u00a0b', encoding: 'UCS-2', units: 3, segments: 1, ucs2: ['\u00a0'], note: 'no-break space' },
  { body: 'γεια', encoding: 'UCS-2', units: 4, segments: 1, note: 'small Greek letters are not in the alphabet' },
  {
    body: 'ΓΕΙΑ',
    encoding: 'UCS-2',
    units: 4,
    segments: 1,
    ucs2: ['Ε', 'Ι', 'Α'],
    note: 'Greek Epsilon, Iota, Alpha look Latin but are not GSM-7',
  },
  { body: 'e\u0301', encoding: 'UCS-2', units: 2, segments: 1, ucs2: ['e\u0301'], note: 'decomposed é: one grapheme of two code units' },
  { body: 'ARRÊT', encoding: 'UCS-2', units: 5, segments: 1, ucs2: ['Ê'] },
  { body: 'Merci beaucoup ! À bientôt.', encoding: 'UCS-2', units: 27, segments: 1, ucs2: ['À', 'ô'] },
  { body: 'Olá! Sua consulta está confirmada para amanhã às 14h.', encoding: 'UCS-2', units: 53, segments: 1, ucs2: ['á', 'ã'] },
  { body: '¿Dónde está tu pedido? Aquí: https://t.example/x', encoding: 'UCS-2', units: 48, segments: 1, ucs2: ['ó', 'á', 'í'] },
  { body: 'Café crème à 2€ ce matin, à bientôt!', encoding: 'UCS-2', units: 36, segments: 1, ucs2: ['ô'], note: '€ is one unit in UCS-2' },
  { body: 'Your total is £12.99 (incl. VAT) — thank you', encoding: 'UCS-2', units: 44, segments: 1, ucs2: ['—'] },
  { body: '<b>not bold</b> & <i>not italic</i> — just text', encoding: 'UCS-2', units: 47, segments: 1, ucs2: ['—'] },
  { body: 'Don’t forget your appointment tomorrow at 10am', encoding: 'UCS-2', units: 46, segments: 1, ucs2: ['’'] },
  { body: 'We’re open 9–5 today. See you soon!', encoding: 'UCS-2', units: 35, segments: 1, ucs2: ['’', '–'] },
  { body: 'Спасибо за заказ!', encoding: 'UCS-2', units: 17, segments: 1 },
  { body: 'مرحبا، هل طلبي جاهز؟', encoding: 'UCS-2', units: 20, segments: 1 },
  { body: 'שלום, ההזמנה מוכנה לאיסוף', encoding: 'UCS-2', units: 25, segments: 1 },
  { body: '你好', encoding: 'UCS-2', units: 2, segments: 1 },
  { body: 'ありがとうございます', encoding: 'UCS-2', units: 10, segments: 1 },
  { body: 'नमस्ते, आपका ऑर्डर तैयार है', encoding: 'UCS-2', units: 27, segments: 1, note: 'Devanagari clusters: units are code units' },

  // Emoji: outside the BMP, two code units each; sequences stay whole.
  { body: 'Thanks 👍', encoding: 'UCS-2', units: 9, segments: 1, ucs2: ['👍'] },
  { body: '🛑', encoding: 'UCS-2', units: 2, segments: 1, ucs2: ['🛑'] },
  { body: '✋', encoding: 'UCS-2', units: 1, segments: 1, ucs2: ['✋'], note: 'U+270B is in the BMP' },
  { body: '👍🏽', encoding: 'UCS-2', units: 4, segments: 1, ucs2: ['👍🏽'], note: 'a skin tone makes one grapheme of four units' },
  { body: '👨‍👩‍👧‍👦', encoding: 'UCS-2', units: 11, segments: 1, ucs2: ['👨‍👩‍👧‍👦'], note: 'a ZWJ family: eleven units' },
  { body: '🇺🇸', encoding: 'UCS-2', units: 4, segments: 1, ucs2: ['🇺🇸'] },
  { body: '❤️', encoding: 'UCS-2', units: 2, segments: 1, ucs2: ['❤️'], note: 'heart + variation selector' },
  { body: 'Thanks! See you then 👍🏽', encoding: 'UCS-2', units: 25, segments: 1 },
  { body: 'Can you call me back? 📞', encoding: 'UCS-2', units: 24, segments: 1 },
  { body: 'Hi 👋 your code is 839201', encoding: 'UCS-2', units: 25, segments: 1 },
  { body: 'Meeting at 3pm 📅 don’t be late', encoding: 'UCS-2', units: 31, segments: 1, ucs2: ['📅', '’'] },
  { body: 'Price 10€ 😀', encoding: 'UCS-2', units: 12, segments: 1 },
  { body: '{}😀', encoding: 'UCS-2', units: 4, segments: 1, note: 'extension characters are one unit in UCS-2' },

  // UCS-2 boundaries: 70 single, 67 concatenated.
  { body: y(1), encoding: 'UCS-2', units: 1, segments: 1 },
  { body: y(69), encoding: 'UCS-2', units: 69, segments: 1 },
  { body: y(70), encoding: 'UCS-2', units: 70, segments: 1 },
  { body: y(71), encoding: 'UCS-2', units: 71, segments: 2 },
  { body: y(133), encoding: 'UCS-2', units: 133, segments: 2 },
  { body: y(134), encoding: 'UCS-2', units: 134, segments: 2, note: '67 × 2' },
  { body: y(135), encoding: 'UCS-2', units: 135, segments: 3 },
  { body: y(200), encoding: 'UCS-2', units: 200, segments: 3 },
  { body: y(201), encoding: 'UCS-2', units: 201, segments: 3 },
  { body: y(202), encoding: 'UCS-2', units: 202, segments: 4 },
  { body: y(670), encoding: 'UCS-2', units: 670, segments: 10 },
  { body: y(671), encoding: 'UCS-2', units: 671, segments: 11 },
  { body: smile(35), encoding: 'UCS-2', units: 70, segments: 1 },
  { body: smile(36), encoding: 'UCS-2', units: 72, segments: 2, note: '33 emoji per part' },
  { body: smile(67), encoding: 'UCS-2', units: 134, segments: 3, note: '134 units yet three parts: a surrogate pair is never split' },
  { body: a(68) + '😀', encoding: 'UCS-2', units: 70, segments: 1 },
  { body: a(69) + '😀', encoding: 'UCS-2', units: 71, segments: 2 },
  { body: a(66) + '😀' + a(66), encoding: 'UCS-2', units: 134, segments: 3, note: 'the emoji would straddle 67: it moves whole' },
  { body: a(65) + '😀' + a(67), encoding: 'UCS-2', units: 134, segments: 2, note: 'the emoji ends part one exactly' },
  { body: a(160) + '’', encoding: 'UCS-2', units: 161, segments: 3, note: 'one curly apostrophe turns one part into three' },
  { body: 'x'.repeat(140) + '“hi”', encoding: 'UCS-2', units: 144, segments: 3, ucs2: ['“', '”'] },
  { body: a(63) + '👨‍👩‍👧‍👦', encoding: 'UCS-2', units: 74, segments: 2, note: 'the family moves whole to part two: 63 + 11' },
  { body: a(56) + '👨‍👩‍👧‍👦', encoding: 'UCS-2', units: 67, segments: 1 },
]
