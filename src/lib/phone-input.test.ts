import { expect, test } from 'vitest'
import { partyFromInput } from './phone-input.ts'

test('a customer number typed in any format becomes the digits the index keys parties by', async () => {
  for (const [typed, digits] of [
    ['(917) 555-0101', '19175550101'],
    ['917.555.0101', '19175550101'],
    ['+1 917 555 0101', '19175550101'],
    ['1-917-555-0101', '19175550101'],
    ['+44 20 7183 8750', '442071838750'],
    ['0044 20 7183 8750', '442071838750'],
    ['011 44 20 7183 8750', '442071838750'],
    ['+33 6 12 34 56 78', '33612345678'],
    // Ten digits after a country code are not a North American number: no 1 goes in front
    // (Singapore's +65 9876 5432 once became 16598765432, shown as (659) 876-5432).
    ['+65 9876 5432', '6598765432'],
    ['0065 9876 5432', '6598765432'],
    ['+49 30 123456', '4930123456'],
  ] as const)
    expect(await partyFromInput(typed), typed).toEqual({ digits })
})

test('what is not a phone number is refused with a message naming the field', async () => {
  expect(await partyFromInput('  ')).toEqual({ error: expect.stringMatching(/^Customer’s number is required/) })
  expect(await partyFromInput('bob')).toEqual({ error: expect.stringMatching(/^Customer’s number may hold only digits/) })
  expect(await partyFromInput('12345')).toEqual({ error: expect.stringMatching(/^Customer’s number must have 7 to 15 digits/) })
  expect(await partyFromInput('+1234567890123456')).toEqual({ error: expect.stringMatching(/7 to 15 digits/) })
  // A local number without its area code: not a customer "5550105".
  expect(await partyFromInput('555-0105')).toEqual({
    error: expect.stringMatching(/^Customer’s number is missing digits: .*10.*area code/),
  })
  expect(await partyFromInput('555 01 05 9')).toEqual({ error: expect.stringMatching(/missing digits/) })
  // Short numbers after a country code stay theirs to judge.
  expect(await partyFromInput('+683 4002')).toEqual({ digits: '6834002' })
  // A national trunk 0 says nothing of the country: asked for, not kept as 02079460958.
  expect(await partyFromInput('020 7946 0958')).toEqual({ error: expect.stringMatching(/^Customer’s number starts with 0: type \+/) })
  expect(await partyFromInput('(0)20 7946 0958')).toEqual({ error: expect.stringMatching(/starts with 0/) })
})
