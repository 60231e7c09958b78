/**
 * NANP area codes (the first three digits of a +1 number) to IANA time zones, for quiet hours.
 *
 * Approximate by nature: number portability lets a customer keep a number after moving across
 * the country, and mobile numbers roam, so the zone is where the number was issued, not where its
 * owner is. Where an area code spans two zones the zone of most of its subscribers is used, and
 * NOTES says so. Toll-free and other non-geographic codes (800, 833, 844, 855, 866, 877, 888,
 * 500-series, 900) have no zone. Compiled from the NANPA area-code assignments by state and
 * province; codes added after that compilation fall back to "unknown", never to a guess.
 */

// One line per zone: the region(s) and the codes. Kept as text so a reviewer can check a state at a glance.
const TABLE: ReadonlyArray<readonly [zone: string, region: string, codes: string]> = [
  ['America/New_York', 'CT', '203 475 860 959'],
  ['America/New_York', 'DC', '202 771'],
  ['America/New_York', 'DE', '302'],
  ['America/New_York', 'FL', '239 305 321 352 386 407 561 656 689 727 754 772 786 813 863 904 941 954'],
  ['America/New_York', 'GA', '229 404 470 478 678 706 762 770 912 943'],
  ['America/New_York', 'KY (east)', '606 859'],
  ['America/New_York', 'MA', '339 351 413 508 617 774 781 857 978'],
  ['America/New_York', 'MD', '227 240 301 410 443 667'],
  ['America/New_York', 'ME', '207'],
  ['America/New_York', 'NC', '252 336 472 704 743 828 910 919 980 984'],
  ['America/New_York', 'NH', '603'],
  ['America/New_York', 'NJ', '201 551 609 640 732 848 856 862 908 973'],
  ['America/New_York', 'NY', '212 315 329 332 347 363 516 518 585 607 624 631 646 680 716 718 838 845 914 917 929 934'],
  ['America/New_York', 'OH', '216 220 234 326 330 380 419 440 513 567 614 740 937'],
  ['America/New_York', 'PA', '215 223 267 272 412 445 484 570 582 610 717 724 814 835 878'],
  ['America/New_York', 'RI', '401'],
  ['America/New_York', 'SC', '803 839 843 854 864'],
  ['America/New_York', 'TN (east)', '423 865'],
  ['America/New_York', 'VA', '276 434 540 571 703 757 804 826 948'],
  ['America/New_York', 'VT', '802'],
  ['America/New_York', 'WV', '304 681'],
  ['America/Detroit', 'MI', '231 248 269 313 517 586 616 679 734 810 906 947 989'],
  ['America/Indiana/Indianapolis', 'IN', '260 317 463 574 765 812 930'],
  ['America/Kentucky/Louisville', 'KY (Louisville)', '502'],
  ['America/Chicago', 'AL', '205 251 256 334 659 938'],
  ['America/Chicago', 'AR', '327 479 501 870'],
  ['America/Chicago', 'FL (west panhandle)', '448 850'],
  ['America/Chicago', 'IA', '319 515 563 641 712'],
  ['America/Chicago', 'IL', '217 224 309 312 331 447 464 618 630 708 730 773 779 815 847 872'],
  ['America/Chicago', 'IN (northwest)', '219'],
  ['America/Chicago', 'KS', '316 620 785 913'],
  ['America/Chicago', 'KY (west)', '270 364'],
  ['America/Chicago', 'LA', '225 318 337 504 985'],
  ['America/Chicago', 'MN', '218 320 507 612 651 763 952'],
  ['America/Chicago', 'MO', '314 417 557 573 636 660 816 975'],
  ['America/Chicago', 'MS', '228 601 662 769'],
  ['America/Chicago', 'ND', '701'],
  ['America/Chicago', 'NE', '308 402 531'],
  ['America/Chicago', 'OK', '405 539 572 580 918'],
  ['America/Chicago', 'SD', '605'],
  ['America/Chicago', 'TN (middle, west)', '615 629 731 901 931'],
  ['America/Chicago', 'TX', '210 214 254 281 325 346 361 409 430 432 469 512 682 713 726 737 806 817 830 832 903 936 940 945 956 972 979'],
  ['America/Chicago', 'WI', '262 274 353 414 534 608 715 920'],
  ['America/Denver', 'CO', '303 719 720 970 983'],
  ['America/Denver', 'MT', '406'],
  ['America/Denver', 'NM', '505 575'],
  ['America/Denver', 'TX (El Paso)', '915'],
  ['America/Denver', 'UT', '385 435 801'],
  ['America/Denver', 'WY', '307'],
  ['America/Boise', 'ID', '208 986'],
  ['America/Phoenix', 'AZ', '480 520 602 623 928'],
  [
    'America/Los_Angeles',
    'CA',
    '209 213 279 310 323 341 350 408 415 424 442 510 530 559 562 619 626 628 650 657 661 669 707 714 747 760 805 818 820 831 840 858 909 916 925 949 951',
  ],
  ['America/Los_Angeles', 'NV', '702 725 775'],
  ['America/Los_Angeles', 'OR', '458 503 541 971'],
  ['America/Los_Angeles', 'WA', '206 253 360 425 509 564'],
  ['America/Anchorage', 'AK', '907'],
  ['Pacific/Honolulu', 'HI', '808'],
  ['America/Puerto_Rico', 'PR', '787 939'],
  ['America/St_Thomas', 'VI', '340'],
  ['Pacific/Guam', 'GU', '671'],
  ['Pacific/Saipan', 'MP', '670'],
  ['Pacific/Pago_Pago', 'AS', '684'],
  // Canada.
  ['America/Toronto', 'ON', '226 249 289 343 365 382 416 437 519 548 613 647 683 705 742 753 807 905 942'],
  ['America/Toronto', 'QC', '263 354 367 418 438 450 468 514 579 581 819 873'],
  ['America/Winnipeg', 'MB', '204 431 584'],
  ['America/Regina', 'SK', '306 474 639'],
  ['America/Edmonton', 'AB', '368 403 587 780 825'],
  ['America/Edmonton', 'NT, NU, YT', '867'],
  ['America/Vancouver', 'BC', '236 250 257 604 672 778'],
  ['America/Moncton', 'NB', '428 506'],
  ['America/Halifax', 'NS, PE', '782 902'],
  ['America/St_Johns', 'NL', '709'],
  // The Caribbean and Atlantic members of the plan.
  ['America/Nassau', 'Bahamas', '242'],
  ['America/Barbados', 'Barbados', '246'],
  ['America/Anguilla', 'Anguilla', '264'],
  ['America/Antigua', 'Antigua and Barbuda', '268'],
  ['America/Tortola', 'British Virgin Islands', '284'],
  ['America/Cayman', 'Cayman Islands', '345'],
  ['Atlantic/Bermuda', 'Bermuda', '441'],
  ['America/Grenada', 'Grenada', '473'],
  ['America/Grand_Turk', 'Turks and Caicos', '649'],
  ['America/Jamaica', 'Jamaica', '658 876'],
  ['America/Montserrat', 'Montserrat', '664'],
  ['America/Lower_Princes', 'Sint Maarten', '721'],
  ['America/St_Lucia', 'Saint Lucia', '758'],
  ['America/Dominica', 'Dominica', '767'],
  ['America/St_Vincent', 'Saint Vincent and the Grenadines', '784'],
  ['America/Santo_Domingo', 'Dominican Republic', '809 829 849'],
  ['America/Port_of_Spain', 'Trinidad and Tobago', '868'],
  ['America/St_Kitts', 'Saint Kitts and Nevis', '869'],
]

/** Area codes whose territory spans zones: the zone chosen and what it leaves out. */
export const NOTES: Readonly<Record<string, string>> = {
  '208': 'Idaho: the panhandle (Coeur d’Alene, Moscow) is Pacific; most subscribers (Boise) are Mountain.',
  '986': 'Idaho overlay of 208: as 208.',
  '270': 'Western Kentucky: mostly Central; Elizabethtown and the east of the code are Eastern.',
  '364': 'Overlay of 270: as 270.',
  '308': 'Western Nebraska: Central for most (Grand Island, Kearney, North Platte); the panhandle is Mountain.',
  '432': 'West Texas: Midland/Odessa are Central; the far-west counties are Mountain.',
  '448': 'Overlay of 850: as 850.',
  '850': 'Florida panhandle: Pensacola, Fort Walton Beach and Panama City are Central; Tallahassee is Eastern.',
  '541': 'Oregon: Malheur County (Ontario) is Mountain; the rest Pacific.',
  '605': 'South Dakota: the east (Sioux Falls) is Central; the west (Rapid City) is Mountain.',
  '701': 'North Dakota: mostly Central; the south-west is Mountain.',
  '785': 'Kansas: Central except four western counties on Mountain time.',
  '620': 'Kansas: as 785 for the south-west corner.',
  '812': 'Southern Indiana: Eastern for most; Evansville and the south-west corner are Central.',
  '930': 'Overlay of 812: as 812.',
  '906': 'Michigan’s Upper Peninsula: Eastern except four counties on the Wisconsin border (Central).',
  '931': 'Middle Tennessee: Central; a few eastern counties are Eastern.',
  '423': 'East Tennessee: Eastern; a few western counties of the code are Central.',
  '520': 'Arizona keeps standard time all year; the Navajo Nation in the north-east observes daylight saving (928).',
  '928': 'Arizona: as 520; the Navajo Nation observes daylight saving.',
  '907': 'Alaska: the western Aleutians are on Hawaii-Aleutian time.',
  '250': 'British Columbia: the East Kootenay is Mountain and the Peace River region keeps Mountain standard time.',
  '807': 'North-western Ontario: Thunder Bay is Eastern; Kenora and the west are Central.',
  '867':
    'The three territories: Yukon keeps UTC−7 all year, Nunavut spans three zones; Mountain time (Northwest Territories) is the middle of them.',
  '709': 'Newfoundland time for the island; most of Labrador is Atlantic.',
  '418': 'Quebec: the Magdalen Islands are Atlantic.',
  '915': 'El Paso and Hudspeth counties are Mountain; the rest of Texas is Central.',
}

/** Codes that dial a service, not a place: no zone. */
export const NON_GEOGRAPHIC = new Set([
  '500',
  '521',
  '522',
  '533',
  '544',
  '566',
  '577',
  '588',
  '600',
  '700',
  '710',
  '800',
  '833',
  '844',
  '855',
  '866',
  '877',
  '888',
  '900',
])

export interface AreaCodeZone {
  zone: string
  region: string
  note?: string
}

export const AREA_CODES: ReadonlyMap<string, AreaCodeZone> = (() => {
  const map = new Map<string, AreaCodeZone>()
  for (const [zone, region, codes] of TABLE) {
    for (const code of codes.split(' ')) {
      if (map.has(code)) throw new Error(`area code ${code} listed twice`)
      const note = NOTES[code]
      map.set(code, note ? { zone, region, note } : { zone, region })
    }
  }
  return map
})()

/**
 * The area code of a North American number in any common format (+1 917 555 0142, 19175550142,
 * (917) 555-0142), or null when the number is not a ten-digit NANP number.
 */
export function areaCodeOf(party: string): string | null {
  let digits = party.replace(/\D/g, '')
  if (digits.length === 11 && digits.startsWith('1')) digits = digits.slice(1)
  else if (digits.length !== 10 || party.trim().startsWith('+')) return null
  // NXX-NXX-XXXX: neither the area code nor the exchange starts with 0 or 1.
  if (!/^[2-9]\d\d[2-9]\d{6}$/.test(digits)) return null
  return digits.slice(0, 3)
}

/** The IANA zone for a party's number, or null (international, toll-free, unknown code). */
export function zoneOf(party: string): string | null {
  const code = areaCodeOf(party)
  return code === null ? null : (AREA_CODES.get(code)?.zone ?? null)
}
