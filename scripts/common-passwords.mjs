// `node scripts/common-passwords.mjs`: writes proxy/access/common-passwords.txt, the passwords
// refused as too common (NIST SP 800-63B §5.1.1.2: "passwords obtained from previous breach
// corpuses", "dictionary words", "repetitive or sequential characters"). Built from the words,
// keyboard walks and endings that head every published breach list, combined the way people
// combine them to reach a length rule. Stored lower-cased with spaces removed, as compared, and
// only from 8 characters: a password needs 12 with its spaces and 8 without them, so
// "password 123" is looked up as "password123".
import { writeFileSync } from 'node:fs'

const WORDS = `password passw0rd p@ssword p@ssw0rd pa55word pass qwerty qwertz azerty iloveyou letmein welcome admin
administrator root user guest login test tester default changeme secret monkey dragon football baseball basketball
soccer hockey master sunshine princess shadow superman batman spiderman trustno1 starwars michael jennifer jordan
hunter ranger buster killer george charlie andrew michelle love lovely jessica pepper daniel access joshua maggie
summer winter spring autumn ashley thomas tigger robert matthew freedom whatever computer internet hello flower
cheese chocolate cookie pokemon naruto liverpool chelsea arsenal manchester barcelona realmadrid juventus
mustang corvette ferrari porsche harley yankees cowboys eagles steelers lakers dolphins mercedes
ginger banana orange apple lemon cherry purple yellow silver golden diamond angel angels butterfly
nicole daniela anthony william richard joseph david james john jessie taylor samsung nokia google facebook
microsoft windows linux ubuntu oracle apple iphone android qazwsx zaq1zaq1 asdfgh zxcvbn abc abcd abcdef
family friends forever together blessed jesus christ god heaven lucky happy smile music dance guitar
monday tuesday friday sunday january february december london paris berlin newyork chicago america
switchboard sms message messages texting office company business support service server database
mypassword newpassword oldpassword yourpassword thepassword password1 mysecret topsecret letmein1 welcome1
qwerty1 admin1 iloveu loveyou baby babygirl sweetheart sweetie honey darling hottie sexy beautiful
superstar rockstar champion winner player gamer ninja samurai warrior knight wizard matrix phoenix
whatsup nothing something everything fuckyou fuckoff asshole bitch shit iloveme mylove`.split(/\s+/)

const ENDINGS = [
  '',
  '1',
  '12',
  '123',
  '1234',
  '12345',
  '123456',
  '1234567',
  '12345678',
  '123456789',
  '1234567890',
  '!',
  '!!',
  '1!',
  '12!',
  '123!',
  '1234!',
  '!@#',
  '@123',
  '#1',
  '01',
  '007',
  '69',
  '99',
  '00',
  '000',
  '111',
  '321',
  '2000',
  '2001',
  '2010',
  '2015',
  '2018',
  '2019',
  '2020',
  '2021',
  '2022',
  '2023',
  '2024',
  '2025',
  '2026',
  '2027',
]

const WALKS = `qwertyuiop qwertyuiop[] asdfghjkl asdfghjkl; zxcvbnm zxcvbnm,./ 1qaz2wsx 1qaz2wsx3edc 1qaz2wsx3edc4rfv
qazwsxedc qazwsxedcrfv zaq12wsx zaq12wsxcde3 !qaz2wsx !qaz@wsx 1q2w3e4r 1q2w3e4r5t 1q2w3e4r5t6y 1q2w3e4r5t6y7u
q1w2e3r4 q1w2e3r4t5 q1w2e3r4t5y6 qweasdzxc qweasdzxc123 asdqwe123 qwe123asd qwerty123456 qwertyasdfgh
qwertyasdfghzxcvbn asdfghjklqwerty poiuytrewq lkjhgfdsa mnbvcxz 0987654321 9876543210 1234567890
123456789012 1234567890123 12345678901234 123456123456 123123123123 abcabcabcabc abc123abc123
abcdefghijkl abcdefghijklm abcdefghijklmnop abcd1234abcd 1234abcd1234 a1b2c3d4e5f6 aa11bb22cc33
123qweasdzxc zxcvbnm123456 password1234567890 correcthorsebatterystaple trustno1trustno1`.split(/\s+/)

const out = new Set()
const keep = (p) => {
  const s = p.toLowerCase().replace(/\s+/g, '')
  if ([...s].length >= 8) out.add(s)
}
for (const w of WORDS) {
  for (const e of ENDINGS) {
    keep(w + e)
    keep(e + w)
  }
  keep(w + w)
  keep(w + w + '1')
  keep(w + w + '123')
  for (const v of ['password', 'qwerty', '123456', 'admin', 'love', 'iloveyou']) {
    keep(v + w)
    keep(w + v)
  }
  keep('iloveyou' + w)
  keep('ilove' + w + '1')
  keep('my' + w + '123')
  keep('my' + w + 'password')
}
for (const w of WALKS) {
  for (const e of ['', '1', '12', '!', '123', '!@#', '1234']) keep(w + e)
}
// Digit runs and one repeated character: 12 to 20 of each.
for (let n = 12; n <= 20; n++) {
  for (const d of '0123456789abcdefghijklmnopqrstuvwxyz') keep(d.repeat(n))
  keep('1234567890'.repeat(2).slice(0, n))
}
const list = [...out].sort()
writeFileSync(new URL('../proxy/access/common-passwords.txt', import.meta.url), list.join('\n') + '\n')
console.log(`${list.length} passwords written`)
